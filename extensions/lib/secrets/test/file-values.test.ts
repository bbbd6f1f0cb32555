import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor, createSecretScanner, FILE_VALUE_LIMITS, loadFileSecrets, valuesIn, withFileSecrets } from '../src/index.js';
import { scaledMs } from '@airlock/kernel/testing';

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

// This package does not depend on the kernel (and its makeTempDir): each test's folders go here.
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A home folder and a project with the usual secret files, and values the format rules cannot see. */
function machine() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'file-values-')));
  made.push(base);
  const home = join(base, 'home');
  const work = join(base, 'work');
  put(join(home, '.aws/credentials'), '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = us-east-1\n');
  put(join(home, '.pgpass'), 'db.example.com:5432:app:app:pg-pass-word-1\n');
  put(join(home, '.netrc'), 'machine api.example.com login me password netrc-pass-1\n');
  put(join(home, '.git-credentials'), 'https://me:git%2Fcred%2Fpass@github.com\n');
  put(join(home, '.vault-token'), 'hvs.vault-token-value\n');
  put(join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=npm-token-value-1\nregistry=https://registry.npmjs.org/\n');
  put(join(home, '.docker/config.json'), '{\n  "auths": {\n    "r.example.com": {\n      "auth": "bWU6ZG9ja2VyLXBhc3N3b3JkLTE="\n    }\n  }\n}\n');
  put(join(work, '.env'), 'DB_PASSWORD=hunter2hunter2\nDEBUG=true\nAPP_NAME=my-application\nAPI_URL=https://api.example.com\n# OLD_PASSWORD=commented-out-1\nTOKEN_REF=${OTHER_TOKEN}\n');
  put(join(work, '.env.example'), 'DB_PASSWORD=template-password\n');
  put(join(work, 'README.md'), 'SECRET_KEY=not-a-secret-file-1\n');
  return { base, home, work };
}

describe("values from the user's secret files", () => {
  it('finds the secret-looking values of each format, and only those', () => {
    const m = machine();
    const values = loadFileSecrets({ home: m.home, workspace: m.work }).map((v) => v.value);
    for (const v of ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AKIAIOSFODNN7EXAMPLE', 'pg-pass-word-1', 'netrc-pass-1', 'git%2Fcred%2Fpass', 'git/cred/pass', 'hvs.vault-token-value', 'npm-token-value-1', 'bWU6ZG9ja2VyLXBhc3N3b3JkLTE=', 'hunter2hunter2']) {
      expect(values, v).toContain(v);
    }
    // Settings, URLs, comments, references, templates and ordinary files are not secrets.
    for (const v of ['us-east-1', 'https://registry.npmjs.org/', 'true', 'my-application', 'https://api.example.com', 'commented-out-1', '${OTHER_TOKEN}', 'template-password', 'not-a-secret-file-1']) {
      expect(values, v).not.toContain(v);
    }
    const names = loadFileSecrets({ home: m.home, workspace: m.work }).map((v) => v.name);
    expect(names).toContain('~/.aws/credentials:aws_secret_access_key');
    expect(names).toContain('.env:DB_PASSWORD');
  });

  it('redacts them wherever they appear, with a placeholder that says where the value is from', () => {
    const m = machine();
    const scanner = withFileSecrets(createSecretScanner(), () => loadFileSecrets({ home: m.home, workspace: m.work }));
    const r = createRedactor(scanner);
    // What `git log -p` prints for a .env committed earlier: the format rules alone miss a low-entropy password.
    const diff = '+DB_PASSWORD=hunter2hunter2\n+DEBUG=true\n psql "postgresql://app:pg-pass-word-1@db/app"';
    expect(createRedactor(createSecretScanner()).text(diff)).toContain('hunter2hunter2');
    const out = r.text(diff);
    expect(out).not.toContain('hunter2hunter2');
    expect(out).not.toContain('pg-pass-word-1');
    expect(out).toContain('[REDACTED:file:.env:DB_PASSWORD#1]');
    expect(out).toContain('+DEBUG=true');
  });

  it('loads once, on the first scan, and honours the allow list', () => {
    const m = machine();
    let loads = 0;
    const scanner = withFileSecrets(createSecretScanner(), () => (loads++, loadFileSecrets({ home: m.home, workspace: m.work })), ['hunter2hunter2']);
    expect(loads).toBe(0);
    expect(scanner.scan('hunter2hunter2 netrc-pass-1').map((f) => f.ruleId)).toEqual(['file:~/.netrc:password']);
    scanner.scan('x');
    expect(loads).toBe(1);
  });

  it('is bounded: symlinks, FIFOs and large files are skipped, and the value count is capped', () => {
    const m = machine();
    put(join(m.base, 'elsewhere/.env'), 'LINKED_SECRET=linked-secret-value\n');
    symlinkSync(join(m.base, 'elsewhere/.env'), join(m.work, '.env.linked'));
    execFileSync('mkfifo', [join(m.work, '.envrc')]);
    put(join(m.work, '.env.big'), `BIG_SECRET=big-secret-value\n${'#'.repeat(FILE_VALUE_LIMITS.bytesPerFile)}\n`);
    const many = Array.from({ length: 400 }, (_, i) => `K${i}_TOKEN=value-number-${i}-xyz`).join('\n');
    put(join(m.work, '.env.local'), many);
    const started = Date.now();
    const values = loadFileSecrets({ home: m.home, workspace: m.work }).map((v) => v.value);
    expect(Date.now() - started).toBeLessThan(scaledMs(2000));
    expect(values).not.toContain('linked-secret-value');
    expect(values).not.toContain('big-secret-value');
    expect(values.length).toBe(FILE_VALUE_LIMITS.values);
  });

  it('reads key = value pairs of several formats', () => {
    expect(valuesIn('x.yml', '  oauth_token: gho_abcdefghijklmnop\n  user: me')).toEqual([{ key: 'oauth_token', value: 'gho_abcdefghijklmnop' }]);
    expect(valuesIn('.env', 'export API_KEY="quoted value here"')).toEqual([{ key: 'API_KEY', value: 'quoted value here' }]);
    expect(valuesIn('c.json', '  "token": "tf-token-value-123",')).toEqual([{ key: 'token', value: 'tf-token-value-123' }]);
  });
});

import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor, createSecretScanner } from '../src/index.js';

/**
 * Key material without its BEGIN line, and base64 of files holding secrets: real keys from
 * node's crypto, ssh-keygen and openssl, cut the way tools cut them (tail, sed, grep, base64),
 * next to ordinary text that looks alike and must come through untouched.
 */

const ROOT = new URL('../../../../', import.meta.url).pathname;
let dir: string;
const keys: Record<string, string> = {};

const run = (cmd: string, args: string[], input?: string): string => execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', input });
const has = (cmd: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-key-body-'));
  keys['rsa pkcs1'] = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  keys['rsa pkcs8'] = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  keys['ec sec1'] = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }) as string;
  keys['ed25519 pkcs8'] = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  keys['rsa pkcs8 encrypted'] = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' }) as string;
  if (has('ssh-keygen')) {
    for (const type of ['ed25519', 'rsa', 'ecdsa']) {
      run('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'dev@example', '-f', `id_${type}`]);
      keys[`openssh ${type}`] = readFileSync(join(dir, `id_${type}`), 'utf8');
    }
  }
  if (has('openssl')) keys['openssl genrsa'] = run('openssl', ['genrsa', '2048']);
  for (const [name, pem] of Object.entries(keys)) writeFileSync(join(dir, name.replace(/ /g, '_')), pem);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The key's body lines: what must never reach the model, whole or in part. */
const bodyLines = (pem: string): string[] => pem.split('\n').filter((l) => l.length > 0 && !l.startsWith('-----') && !l.includes(':'));
const file = (name: string): string => name.replace(/ /g, '_');

function expectNoKeyMaterial(output: string, pem: string): void {
  const redacted = createRedactor(createSecretScanner()).text(output);
  for (const line of bodyLines(pem)) expect(redacted, `a body line survived in:\n${redacted}`).not.toContain(line);
  expect(redacted).toContain('[REDACTED:private-key#1]');
}

describe('private-key bodies without their BEGIN line', () => {
  it('has real keys of every kind to cut', () => {
    expect(Object.keys(keys).length).toBeGreaterThanOrEqual(5);
    expect(keys['ed25519 pkcs8']).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/]{64}\n-----END/);
  });

  it.each(['rsa pkcs1', 'rsa pkcs8', 'ec sec1', 'rsa pkcs8 encrypted', 'openssh ed25519', 'openssh rsa', 'openssh ecdsa', 'openssl genrsa'])(
    '%s: read from an offset, tail, one line, a range, grep -v',
    (name) => {
      const pem = keys[name];
      if (pem === undefined) return; // the tool that makes this kind is not installed
      const f = file(name);
      const cuts = {
        offset: run('tail', ['-n', '+2', f]), // `read` with offset=2: everything after BEGIN
        tail: run('tail', ['-n', '4', f]),
        oneLine: run('sed', ['-n', '3p', f]),
        range: run('sed', ['-n', '2,4p', f]),
        grep: run('grep', ['-v', 'PRIVATE KEY', f]),
        cutBothEnds: run('sed', ['-n', '3,5p', f]),
      };
      for (const [how, output] of Object.entries(cuts)) {
        const lines = bodyLines(output);
        expect(lines.length, `${how} cut nothing`).toBeGreaterThan(0);
        expectNoKeyMaterial(`$ cmd\n${output}\n(exit 0)`, output);
      }
    },
  );

  it('the last short line right above END, after a cut', () => {
    const pem = keys['rsa pkcs1']!;
    const lines = pem.trimEnd().split('\n');
    const tail = lines.slice(-2).join('\n'); // `tail -n 2`: the short last body line and END
    expect(lines.at(-2)!.length).toBeLessThan(64);
    expectNoKeyMaterial(tail, tail);
  });

  it('a cut inside a JSON string (a service-account file read from an offset)', () => {
    const pem = keys['rsa pkcs8']!;
    const escaped = JSON.stringify({ private_key: pem }).slice(60); // starts inside the body
    expect(escaped).not.toContain('BEGIN');
    const redacted = createRedactor(createSecretScanner()).text(escaped);
    for (const line of bodyLines(pem).slice(2)) expect(redacted).not.toContain(line);
  });

  it('grep -n with a path prefix', () => {
    const f = file('rsa pkcs8');
    const output = run('grep', ['-n', '-v', 'PRIVATE', f, '/dev/null']);
    expect(output).toMatch(/^rsa_pkcs8:2:/);
    expectNoKeyMaterial(output, keys['rsa pkcs8']!);
  });
});

describe('base64 of files that hold secrets', () => {
  const GH = 'ghp_' + 'Zq9x7LmN3pR5tV8wY2bD4fH6jK1sA0cE3gI5';

  it('`base64 .env` (wrapped at 76) and `base64 -w0` give up the token inside', () => {
    writeFileSync(join(dir, '.env'), `# local settings\nNODE_ENV=development\nGITHUB_TOKEN=${GH}\nPORT=3000\n`);
    for (const args of [['.env'], ['-w0', '.env']]) {
      const output = run('base64', args);
      const redacted = createRedactor(createSecretScanner()).text(`$ base64 ${args.join(' ')}\n${output}`);
      expect(redacted).toBe(`$ base64 ${args.join(' ')}\n[REDACTED:base64:github-token#1]${args[0] === '-w0' ? '' : '\n'}`);
      expect(Buffer.from(redacted, 'utf8').toString()).not.toContain(output.slice(0, 40));
    }
  });

  it('`echo -n $TOKEN | base64`, and a base64 value in JSON', () => {
    const encoded = run('base64', ['-w0'], GH);
    const r = createRedactor(createSecretScanner());
    expect(r.text(`${encoded}\n`)).toBe('[REDACTED:base64:github-token#1]\n');
    expect(r.text(`{"auth": "${Buffer.from(`user:${GH}`).toString('base64')}"}`)).toMatch(/^\{"auth": "\[REDACTED:(?:base64:github-token|secret-assignment)#\d\]"\}$/);
  });

  it('`base64 id_ed25519`: the key inside the encoding', () => {
    const output = run('base64', [file('rsa pkcs8')]);
    const redacted = createRedactor(createSecretScanner()).text(output);
    expect(redacted.trim()).toBe('[REDACTED:base64:private-key#1]');
  });

  it('the value of a secret environment variable, base64-encoded', () => {
    const scanner = createSecretScanner({ env: { DB_PASSWORD: 'hunter2hunter2' } });
    const encoded = Buffer.from('login with hunter2hunter2 please').toString('base64');
    expect(createRedactor(scanner).text(encoded)).toBe('[REDACTED:base64:env:DB_PASSWORD#1]');
  });
});

describe('ordinary text that looks alike comes through unchanged', () => {
  const unchanged = (text: string): void => {
    const found = createSecretScanner().scan(text).map((f) => `${f.ruleId}: ${text.slice(f.start, f.end).slice(0, 80)}`);
    expect(found).toEqual([]);
  };

  it("the repo's own lockfiles", () => {
    unchanged(readFileSync(join(ROOT, 'pnpm-lock.yaml'), 'utf8'));
    unchanged(readFileSync(join(ROOT, 'bench/peer/package-lock.json'), 'utf8'));
  });

  it('git SHAs and sha256sum output', () => {
    unchanged(execFileSync('git', ['log', '-300', '--format=%H %T %P%n%s'], { cwd: ROOT, encoding: 'utf8' }));
    unchanged(execFileSync('sha256sum', ['pnpm-lock.yaml', 'package.json'], { cwd: ROOT, encoding: 'utf8' }));
    unchanged(`${randomBytes(32).toString('hex')}\n${randomBytes(32).toString('hex').toUpperCase()}\n`);
  });

  it('base64 of binary data: wrapped at 76 and 64, one line, and a data URL', () => {
    writeFileSync(join(dir, 'blob.bin'), randomBytes(3000));
    unchanged(run('base64', ['blob.bin']));
    unchanged(run('base64', ['-w0', 'blob.bin']));
    unchanged(`<img src="data:image/png;base64,${randomBytes(1200).toString('base64')}">`);
  });

  it('(known and accepted) base64 wrapped at 64, as `openssl base64` writes it, reads as key material', () => {
    // A 64-wide line of random base64 is what a PEM body line is; without a header nothing tells them apart.
    const output = randomBytes(300).toString('base64').replace(/.{64}/g, '$&\n');
    expect(createRedactor(createSecretScanner()).text(output)).toBe('[REDACTED:private-key#1]');
  });

  it('base64 of an ordinary text file', () => {
    unchanged(run('base64', [join(ROOT, 'package.json')]));
  });

  it('a 64-character base64 value in JSON or on a line with other words', () => {
    const digest = randomBytes(48).toString('base64');
    unchanged(`{"digest": "${digest}", "size": 1024}\n`);
    unchanged(`digest ${digest} ok\n`);
  });

  it('SRI hashes, public keys and certificates with their header', () => {
    unchanged(`<script src="x.js" integrity="sha384-${randomBytes(48).toString('base64')}" crossorigin="anonymous"></script>`);
    unchanged(`sha384-${randomBytes(48).toString('base64')}\n`);
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    unchanged(publicKey.export({ type: 'spki', format: 'pem' }) as string);
    unchanged(publicKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    if (has('ssh-keygen')) {
      unchanged(readFileSync(join(dir, 'id_ed25519.pub'), 'utf8'));
      unchanged(run('ssh-keygen', ['-e', '-f', 'id_rsa.pub'])); // RFC 4716: `---- BEGIN SSH2 PUBLIC KEY ----`, 70 a line
    }
    if (has('openssl')) {
      run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'cert.key', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=airlock.test']);
      unchanged(readFileSync(join(dir, 'cert.pem'), 'utf8'));
    }
  });
});

describe('secrets cut across fixed-width lines', () => {
  const GH = 'ghp_' + 'Zq9x7LmN3pR5tV8wY2bD4fH6jK1sA0cE3gI5';
  let box: string;
  beforeAll(() => {
    box = mkdtempSync(join(tmpdir(), 'airlock-folded-'));
    writeFileSync(join(box, 'app.txt'), `NODE_ENV=production\nGITHUB_TOKEN=${GH}\nPORT=3000\n`);
  });
  afterAll(() => rmSync(box, { recursive: true, force: true }));
  const sh = (command: string): string => execFileSync('sh', ['-c', command], { cwd: box, encoding: 'utf8' });
  const redact = (text: string): string => createRedactor(createSecretScanner()).text(text);

  it('`fold -w 20` of a file holding a token', () => {
    const output = sh('fold -w 20 app.txt');
    expect(output).not.toContain(GH); // the token really is cut
    const redacted = redact(output);
    for (const piece of output.split('\n').filter((l) => l.length >= 6 && GH.includes(l))) expect(redacted).not.toContain(piece);
    expect(redacted).toContain('[REDACTED:github-token#1]');
    expect(redacted).toMatch(/^NODE_ENV=production\n/);
  });

  it('`base64 -w0 | fold -w 70`, and one line of it (an offset that is not a multiple of 4)', () => {
    const output = sh('base64 -w0 app.txt | fold -w 70; echo');
    expect(redact(output).trim()).toBe('[REDACTED:base64:github-token#1]');
    // A line of `fold -w 90` starts 90 characters in: 2 past a 4-aligned start. Its token lies wholly inside it.
    writeFileSync(join(box, 'padded.txt'), `# ${'x'.repeat(66)}\nGITHUB_TOKEN=${GH}\n`);
    const second = sh('base64 -w0 padded.txt | fold -w 90; echo').split('\n')[1]!;
    expect(second.length).toBeGreaterThan(60);
    expect(redact(`${second}\n`)).toBe('[REDACTED:base64:github-token#1]\n');
  });

  it('does not glue a token to the next line of the same length (log lines often are)', () => {
    const a = `token=${GH}`;
    const b = `x${'Ab3'.repeat(15)}`.slice(0, a.length);
    expect(redact(`${a}\n${b}\n${b}\n`)).toBe(`token=[REDACTED:github-token#1]\n${b}\n${b}\n`);
  });

  it('leaves fixed-width text without secrets alone (a hex dump, a table)', () => {
    const dump = sh('od -A x -t x1z -v app.txt');
    expect(createSecretScanner().scan(dump.replace(/ghp_|>.*</g, ''))).toEqual([]);
    const table = Array.from({ length: 20 }, (_, i) => `| item-${String(i).padStart(3, '0')} | ok     | 12.5 ms |`).join('\n');
    expect(redact(table)).toBe(table);
  });
});

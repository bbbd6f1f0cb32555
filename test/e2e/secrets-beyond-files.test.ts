import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 19 §2 through the real binary and real git: secrets reached without opening a secret
 * file — git history, credential helpers, the environment, and a payload decoded and run in one
 * command line — and the ordinary work next to each that must keep working.
 */

const boxes: ReturnType<typeof sandbox>[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) rmSync(box.base, { recursive: true, force: true });
});

const DB_PASSWORD = 'hunter2hunter2';
const STORED = 'store-pass-xyz-1';

function machine() {
  const box = sandbox();
  boxes.push(box);
  const env = { XDG_STATE_HOME: join(box.home, '.local', 'state') };
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: box.project, env: { ...process.env, HOME: box.home }, stdio: 'pipe' }).toString();
  box.write('project/README.md', '# app\n');
  box.write('project/.env', `DB_PASSWORD=${DB_PASSWORD}\nDEBUG=true\n`);
  git('init', '-q');
  git('add', 'README.md', '.env');
  git('commit', '-qm', 'first, with the .env by mistake');
  git('rm', '-q', '--cached', '.env');
  box.write('project/.gitignore', '.env\n');
  git('add', '.gitignore');
  git('commit', '-qm', 'stop tracking .env');
  // A credential helper that stores a password, as `git config credential.helper store` leaves it.
  box.write('home/.gitconfig', '[credential]\n\thelper = store\n');
  box.write('home/.git-credentials', `https://me:${STORED}@example.com\n`);
  const bash = (command: string, extraEnv: Record<string, string> = {}) => box.airlock(['call', 'bash', JSON.stringify({ command })], { env: { ...env, ...extraEnv } });
  const auditLines = () => {
    const root = join(env.XDG_STATE_HOME, 'airlock', 'audit');
    return readFileSync(join(root, readdirSync(root)[0]!, 'audit.jsonl'), 'utf8');
  };
  return { box, git, bash, auditLines };
}

describe('git history: a deleted .env is still a secret file', () => {
  it('git show / cat-file / log -p -- .env are denied; the history itself stays usable and its secret values redacted', async () => {
    const m = machine();
    for (const command of ['git show HEAD~1:.env', 'git cat-file -p HEAD~1:.env', 'git log -p -- .env', 'git grep DB_ HEAD~1 -- .env']) {
      const r = await m.bash(command);
      expect(r.code, command).not.toBe(0);
      expect(r.stdout + r.stderr, command).toContain('default:secret-read');
      expect(r.stdout + r.stderr, command).not.toContain(DB_PASSWORD);
    }
    // The whole history is ordinary work: it runs, and a value from the user's secret files is redacted in it.
    const log = await m.bash('git log -p');
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('stop tracking .env');
    expect(log.stdout).toContain('+DEBUG=true');
    expect(log.stdout).not.toContain(DB_PASSWORD);
    expect(log.stdout).toContain('[REDACTED:file:.env:DB_PASSWORD#1]');
    const show = await m.bash('git show HEAD:README.md');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('# app');
  }, scaledMs(90_000));
});

describe('credential helpers and programs that print credentials', () => {
  it('git credential fill is a secret read; other git work is not', async () => {
    const m = machine();
    const fill = await m.bash("printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill");
    expect(fill.code).not.toBe(0);
    expect(fill.stdout + fill.stderr).toContain('default:credential-read');
    expect(fill.stdout + fill.stderr).not.toContain(STORED);
    const status = await m.bash('git log --oneline && git status --short');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('stop tracking .env');
  }, scaledMs(90_000));
});

describe('the environment', () => {
  it('env does not print what well-known tools read credentials from', async () => {
    const m = machine();
    const secrets = { MYSQL_PWD: 'mysql-pass-value-1', DOCKER_AUTH_CONFIG: '{"auths":{"r.example.com":{"auth":"bWU6cHc="}}}', BUNDLE_GEMS__EXAMPLE__COM: 'me:gem-pass-value-1' };
    const r = await m.bash('env', { ...secrets, PLAIN_SETTING: 'visible-value' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('PLAIN_SETTING=visible-value');
    for (const [name, value] of Object.entries(secrets)) {
      expect(r.stdout, name).not.toContain(`${name}=`);
      expect(r.stdout, name).not.toContain(value);
    }
  }, scaledMs(90_000));
});

describe('a payload decoded and run in one command line', () => {
  it('does not run without a person, and the audit record lets an auditor confirm what it was', async () => {
    const m = machine();
    const payload = Buffer.from('touch pwned-marker\n').toString('base64');
    const command = `DEPLOY_TOKEN=${payload}; echo $DEPLOY_TOKEN | base64 -d > .t.sh && bash .t.sh`;
    const r = await m.bash(command);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('needs a person');
    expect(existsSync(join(m.box.project, 'pwned-marker'))).toBe(false);
    expect(existsSync(join(m.box.project, '.t.sh'))).toBe(false);
    const lines = m.auditLines();
    expect(lines).not.toContain(payload);
    const decision = lines.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; votes: { rule?: string }[]; redactions?: Record<string, string> }).find((rec) => rec.type === 'decision')!;
    expect(decision.votes.map((v) => v.rule)).toContain('default:runs-written-file');
    expect(Object.values(decision.redactions ?? {})).toContain(createHash('sha256').update(payload).digest('hex'));

    // Running an existing script, and writing then reading a file, stay allowed.
    m.box.write('project/build.sh', 'echo built > out.txt\n');
    const ok = await m.bash('bash build.sh && cat out.txt');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('built');
  }, scaledMs(90_000));
});

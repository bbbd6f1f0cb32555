import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** Issue 9 through the real binary: a removed log shows in `airlock audit verify`; huge arguments stay small. */

const boxes: ReturnType<typeof sandbox>[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) rmSync(box.base, { recursive: true, force: true });
});

function machine() {
  const box = sandbox();
  boxes.push(box);
  // The state folder inside the sandbox, whatever the environment running the tests says.
  const env = { XDG_STATE_HOME: join(box.home, '.local', 'state') };
  const auditRoot = join(env.XDG_STATE_HOME, 'airlock', 'audit');
  const logDir = () => join(auditRoot, readdirSync(auditRoot)[0]!);
  const airlock = (args: string[], stdin?: string) => box.airlock(args, { env, ...(stdin === undefined ? {} : { stdin }) });
  return { box, env, logDir, airlock };
}

describe('airlock audit verify and the chain head', () => {
  it('rm -f through a link to the audit folder is reported, before and after the next run', async () => {
    const m = machine();
    m.box.write('project/notes.txt', 'hello\n');
    for (let i = 0; i < 3; i++) expect((await m.airlock(['call', 'read', '{"path":"notes.txt"}'])).code).toBe(0);
    const intact = await m.airlock(['audit', 'verify']);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toMatch(/^intact: 6 records in .*audit\.jsonl; chain from genesis, head [0-9a-f]{64}; ends where its head says/);

    // The reported attack: a link to the audit folder, and the log removed through it.
    execFileSync('sh', ['-c', `ln -s "${m.logDir()}" adl && rm -f adl/audit.jsonl`], { cwd: m.box.project });
    const gone = await m.airlock(['audit', 'verify']);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toContain('BROKEN (truncated)');
    expect(gone.stdout).toContain('says it ended at seq 5: the log was deleted or emptied');

    // The next run starts a new chain, and records what it found first.
    expect((await m.airlock(['call', 'read', '{"path":"notes.txt"}'])).code).toBe(0);
    const after = await m.airlock(['--json', 'audit', 'verify']);
    expect(after.code).toBe(1);
    const report = JSON.parse(after.stdout) as { ok: boolean; broken: { kind: string; line: number; message: string } };
    expect(report.broken).toMatchObject({ kind: 'head-mismatch', line: 1 });
    expect(report.broken.message).toContain('the head said seq 5, but the log held no records');
    // --no-head checks the chain alone (a copied log): that part is intact, which is why the head matters.
    expect((await m.airlock(['audit', 'verify', '--no-head'])).stdout).toContain('BROKEN (head-mismatch)');
  }, scaledMs(60_000));

  it('the head file deleted: verify fails and says what to do', async () => {
    const m = machine();
    m.box.write('project/notes.txt', 'hello\n');
    expect((await m.airlock(['call', 'read', '{"path":"notes.txt"}'])).code).toBe(0);
    rmSync(join(m.env.XDG_STATE_HOME, 'airlock', 'audit-heads'), { recursive: true });
    const result = await m.airlock(['audit', 'verify']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('BROKEN (head-missing)');
    expect(result.stdout).toContain('move the log folder and its head file aside');
  }, scaledMs(60_000));

  // issue 28: a copy of the log (for an auditor) has no head of its own; the message says how to check it anyway.
  it('a copied log: verify names --no-head, and with it the copy verifies', async () => {
    const m = machine();
    m.box.write('project/notes.txt', 'hello\n');
    expect((await m.airlock(['call', 'read', '{"path":"notes.txt"}'])).code).toBe(0);
    const copy = join(m.box.base, 'for-the-auditor.jsonl');
    copyFileSync(join(m.logDir(), 'audit.jsonl'), copy);
    const result = await m.airlock(['audit', 'verify', copy]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('BROKEN (head-missing)');
    expect(result.stdout).toContain('airlock audit verify --no-head');
    const alone = await m.airlock(['audit', 'verify', '--no-head', copy]);
    expect(alone.code, alone.stdout + alone.stderr).toBe(0);
  }, scaledMs(60_000));
});

describe('a 2 MB command through the real binary and the default set', () => {
  it('gets a denial of a few KB, and audit records of a few KB that keep its length and SHA-256', async () => {
    const m = machine();
    const command = `rm -rf /${'a'.repeat(2_000_000)}`;
    const result = await m.airlock(['--json', 'call', 'bash', '-'], JSON.stringify({ command }));
    expect(result.code).toBe(1);
    expect(result.stdout.length).toBeLessThan(8 * 1024);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'denied' });
    const lines = readFileSync(join(m.logDir(), 'audit.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThan(16 * 1024);
    expect(lines[0]).toMatch(new RegExp(`cut by the audit log: ${command.length} characters in all, sha256 [0-9a-f]{64}`));
  }, scaledMs(60_000));
});

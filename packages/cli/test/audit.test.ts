import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditWriter, defaultAuditPath, headsDir, lineHash } from '@airlock/audit-log';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';
import { auditTailCommand } from '@airlock/audit-log';
import { scaledMs } from '@airlock/kernel/testing';

const temps: string[] = [];
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-cli-audit-')));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The heads folder the CLI uses when `home` is the test's home (testIO). */
function headsFor(home: string): string {
  return headsDir({ env: testIO(home, home).env, home });
}

async function writeLog(path: string, n: number, options: { maxBytes?: number; home?: string } = {}): Promise<void> {
  const w = new AuditWriter({ path, session: 's', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: options.maxBytes ?? 1 << 20, maxFiles: 50, headsDir: headsFor(options.home ?? dirname(path)) });
  for (let i = 0; i < n; i++) {
    await w.append({ type: 'result', toolCallId: `c${i}`, tool: 'echo', outcome: 'ok', isError: false, durationMs: 1.5, resultBytes: 2, resultSha256: lineHash(String(i)) });
  }
  await w.close();
}

describe('airlock audit verify', () => {
  it('exit 0 and "intact" for an untouched log; --json gives the report', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 4);
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', 'audit.jsonl'], io)).toBe(0);
    expect(io.out()).toMatch(/^intact: 4 records in .*audit\.jsonl; chain from genesis, head [0-9a-f]{64}; ends where its head says \(.*audit-heads.*\.json\)\n$/);
    const json = testIO(dir, dir);
    expect(await run(['--json', 'audit', 'verify', path], json)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({ ok: true, records: 4, anchor: 'genesis' });
  });

  it('exit 1 with the first broken link: kind, line and what happened', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 5);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.splice(2, 1);
    writeFileSync(path, lines.join('\n'));
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', path], io)).toBe(1);
    expect(io.out()).toContain(`BROKEN (deleted) at line 3 of ${path}`);
    expect(io.out()).toContain('seq 2');
    const json = testIO(dir, dir);
    expect(await run(['--json', 'audit', 'verify', path], json)).toBe(1);
    expect(JSON.parse(json.out())).toMatchObject({ ok: false, broken: { kind: 'deleted', line: 3, file: path } });
  });

  it('exit 1 for a torn last line', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 2);
    appendFileSync(path, '{"v":1,"se');
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', path], io)).toBe(1);
    expect(io.out()).toContain('BROKEN (torn) at line 3');
  });

  it('a folder: every rotated file in order', async () => {
    const dir = tempDir();
    await writeLog(join(dir, 'audit.jsonl'), 20, { maxBytes: 600 });
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', dir], io)).toBe(0);
    expect(io.out()).toMatch(/^intact: 20 records in \d+ files \(.*audit\.1\.jsonl, .*audit\.jsonl\)/);
  });

  it('a log replaced by a fresh, valid chain: the chain alone is intact, the head says otherwise; --no-head checks the chain alone', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 6);
    // A valid chain written elsewhere by the real writer, moved over the log.
    const other = tempDir();
    await writeLog(join(other, 'audit.jsonl'), 3);
    renameSync(join(other, 'audit.jsonl'), path);
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', path], io)).toBe(1);
    expect(io.out()).toContain(`BROKEN (truncated) at line 3 of ${path}`);
    expect(io.out()).toContain('The log ends at seq 2, but the head');
    expect(io.out()).toContain('or the log was replaced');
    const chainOnly = testIO(dir, dir);
    expect(await run(['audit', 'verify', '--no-head', path], chainOnly)).toBe(0);
    expect(chainOnly.out()).toContain('note: The end of the chain was not checked against a head');
  });

  it('a log whose head is gone is not "intact"', async () => {
    const dir = tempDir();
    await writeLog(join(dir, 'audit.jsonl'), 2);
    rmSync(headsFor(dir), { recursive: true });
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', dir], io)).toBe(1);
    expect(io.out()).toContain('BROKEN (head-missing)');
    expect(io.out()).toContain('the head was deleted, or this log was written before Airlock kept heads');
  });

  it('exit 2 when there is nothing to verify, with a next step', async () => {
    const dir = tempDir();
    const io = testIO(dir, dir);
    expect(await run(['audit', 'verify', 'nope.jsonl'], io)).toBe(2);
    expect(io.err()).toContain(`airlock: No audit log at ${join(dir, 'nope.jsonl')}.`);
    expect(await run(['audit', 'verify', 'a', 'b'], testIO(dir, dir))).toBe(2);
    expect(await run(['audit', 'frobnicate'], testIO(dir, dir))).toBe(2);
  });
});

describe('airlock audit tail', () => {
  it('the last N records, one line each; --json prints the stored lines exactly', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 30, { maxBytes: 1500 });
    const io = testIO(dir, dir);
    expect(await run(['audit', 'tail', path, '-n', '3'], io)).toBe(0);
    const shown = io.out().trimEnd().split('\n');
    expect(shown).toHaveLength(3);
    expect(shown[0]).toMatch(/^#27 \S+ result {3}echo c27 ok 1\.5 ms 2 B sha256 [0-9a-f]{12}$/);
    expect(shown[2]).toMatch(/^#29 /);
    const json = testIO(dir, dir);
    expect(await run(['--json', 'audit', 'tail', path, '-n', '40'], json)).toBe(0);
    // Reaches back through the rotated files, oldest first.
    expect(json.out().trimEnd().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await run(['audit', 'tail', path, '-n', '0'], testIO(dir, dir))).toBe(2);
  });

  it('without a file: this project\'s log in the state folder; a settings "path" option wins', async () => {
    const home = tempDir();
    const project = tempDir();
    await writeLog(defaultAuditPath(project, { env: { XDG_STATE_HOME: join(home, '.state') }, home }), 2, { home });
    const io = testIO(project, home);
    expect(await run(['audit', 'tail'], io)).toBe(0);
    expect(io.out().trimEnd().split('\n')).toHaveLength(2);
    expect(await run(['audit', 'verify'], testIO(project, home))).toBe(0);

    mkdirSync(join(project, 'logs'));
    await writeLog(join(project, 'logs', 'mine.jsonl'), 1);
    writeFileSync(join(project, '.airlockrc.json'), JSON.stringify({ extensions: [{ name: '@airlock/audit-log', options: { path: 'logs/mine.jsonl' } }] }));
    const configured = testIO(project, home);
    expect(await run(['audit', 'tail'], configured)).toBe(0);
    expect(configured.out().trimEnd().split('\n')).toHaveLength(1);
  });

  it('reads a big log from its end: the last lines of a 1,000-record file, exactly', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 1000, { maxBytes: 1 << 30 });
    const json = testIO(dir, dir);
    expect(await run(['--json', 'audit', 'tail', path, '-n', '500'], json)).toBe(0);
    const stored = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(json.out().trimEnd().split('\n')).toEqual(stored.slice(-500));
  });

  it('--follow prints records as they are written, across a rotation, until stopped', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    await writeLog(path, 2, { maxBytes: 1 << 20 });
    const io = testIO(dir, dir);
    const stop = new AbortController();
    const following = auditTailCommand({ file: path, lines: 1, follow: true, signal: stop.signal }, { json: true }, io);
    const seqs = () => io.out().trimEnd().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { seq: number }).seq);
    await vi.waitFor(() => expect(seqs()).toEqual([1]));
    // More records, then a rotation (a tiny size limit) in the middle of them.
    await writeLog(path, 6, { maxBytes: 600 });
    await vi.waitFor(() => expect(seqs()).toEqual([1, 2, 3, 4, 5, 6, 7]), { timeout: scaledMs(3000) });
    stop.abort();
    expect(await following).toBe(0);
  });

  it('exit 2 when the project has no log yet', async () => {
    const home = tempDir();
    const io = testIO(tempDir(), home);
    expect(await run(['audit', 'tail'], io)).toBe(2);
    expect(io.err()).toMatch(/No audit log at .*\.state\/airlock\/audit\/.*audit\.jsonl\.\nNo tool call has been logged/);
  });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a default run writes its audit records outside the project', () => {
  it('airlock call: two records in the state folder, nothing new in the project; verify passes', async () => {
    const home = tempDir();
    const project = tempDir();
    writeFileSync(join(project, 'a.txt'), 'hello\n');
    const io = testIO(project, home);
    // The extension finds its default folder from the process environment (the host hands
    // extensions no env), so the test points the process at the throw-away home too.
    vi.stubEnv('HOME', home);
    vi.stubEnv('XDG_STATE_HOME', join(home, '.state'));
    const code = await run(['call', 'read', '{"path":"a.txt"}'], io);
    expect(io.err()).not.toContain('audit-log');
    expect(code).toBe(0);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(project)).toEqual(['a.txt']);
    const log = defaultAuditPath(project, { env: { XDG_STATE_HOME: join(home, '.state') }, home });
    const records = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; tool: string });
    expect(records.map((r) => [r.type, r.tool])).toEqual([
      ['decision', 'read'],
      ['result', 'read'],
    ]);
    expect(await run(['audit', 'verify'], testIO(project, home))).toBe(0);
  });
});

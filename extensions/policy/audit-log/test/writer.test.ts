import { execFile } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditWriter, lineHash, verifyAuditLog, type WriterOptions } from '../src/index.js';
import { readLines, removeTempDirs, tempDir, resultBody } from './helpers.js';
import { builtFile, scaledMs } from '@airlock/kernel/testing';

const writers: AuditWriter[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(writers.splice(0).map((w) => w.close().catch(() => undefined)));
  removeTempDirs();
});

function writer(path: string, options: Partial<WriterOptions> = {}): AuditWriter {
  const w = new AuditWriter({ path, session: 's', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 10 * 1024 * 1024, maxFiles: 10, headsDir: join(dirname(path), 'heads'), ...options });
  writers.push(w);
  return w;
}

/** The log files of a folder (the tests keep the heads in a "heads" folder beside them). */
const logFiles = (dir: string) => readdirSync(dir).filter((name) => name !== 'heads');

const body = resultBody;

describe('writer: files and permissions', () => {
  it('creates nothing until the first record, then a 0700 folder and a 0600 file', async () => {
    const dir = join(tempDir(), 'deep', 'audit');
    const w = writer(join(dir, 'audit.jsonl'));
    expect(() => statSync(dir)).toThrow();
    await w.append(body(0));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'audit.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('one write per record, even for 200 records appended at once', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const w = writer(path);
    const records = await Promise.all(Array.from({ length: 200 }, (_, i) => w.append(body(i))));
    expect(w.stats).toMatchObject({ records: 200, writes: 200 });
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i));
    expect(readLines(path)).toHaveLength(200);
  });

  it('a record that cannot be written rejects with the path and a next step, and the queue goes on', async () => {
    const base = tempDir();
    const w = writer(join(base, 'audit.jsonl', 'nested', 'audit.jsonl'));
    // The parent "audit.jsonl" will be a file, so the folder cannot be created.
    const ok = writer(join(base, 'audit.jsonl'));
    await ok.append(body(0));
    await expect(w.append(body(1))).rejects.toThrow(/audit-log could not open .*nested.*set the audit-log option "path"/);
    await expect(ok.append(body(2))).resolves.toMatchObject({ seq: 1 });
  });
});

describe('writer: fsync policy', () => {
  it('always: one fsync per record', async () => {
    const w = writer(join(tempDir(), 'audit.jsonl'), { fsync: 'always' });
    for (let i = 0; i < 5; i++) await w.append(body(i));
    expect(w.stats.fsyncs).toBe(5);
  });

  it('never: no fsync, not even on close', async () => {
    const w = writer(join(tempDir(), 'audit.jsonl'), { fsync: 'never' });
    for (let i = 0; i < 5; i++) await w.append(body(i));
    await w.close();
    expect(w.stats.fsyncs).toBe(0);
  });

  it('interval: one fsync for a burst, after the interval, and one on close for what came after', async () => {
    const w = writer(join(tempDir(), 'audit.jsonl'), { fsync: 'interval', fsyncIntervalMs: 500 });
    await Promise.all(Array.from({ length: 50 }, (_, i) => w.append(body(i))));
    expect(w.stats.fsyncs).toBe(0);
    await vi.waitFor(() => expect(w.stats.fsyncs).toBe(1), { timeout: 4000, interval: 20 });
    await w.append(body(50));
    await w.close();
    expect(w.stats.fsyncs).toBe(2);
  });
});

describe('writer: rotation', () => {
  it('rotates by size; every file chains from the one before; verify of the folder checks them in order', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const w = writer(path, { maxBytes: 700, maxFiles: 50 });
    for (let i = 0; i < 30; i++) await w.append(body(i));
    await w.close();
    const names = logFiles(dir).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(names.length).toBeGreaterThan(3);
    expect(names.at(-1)).toBe('audit.jsonl');
    for (const name of names) expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(700);
    // The first record of rotated file 2 holds the hash of the last line of file 1.
    expect(JSON.parse(readLines(join(dir, 'audit.2.jsonl'))[0]!).prev).toBe(lineHash(readLines(join(dir, 'audit.1.jsonl')).at(-1)!));
    const [set] = verifyAuditLog(dir, { headsDir: join(dir, 'heads') });
    expect(set).toMatchObject({ kind: 'report', report: { ok: true, records: 30, anchor: 'genesis', notes: [] } });
    // One file alone is checked against the last line of the file before it.
    expect(verifyAuditLog(join(dir, 'audit.3.jsonl'))[0]).toMatchObject({ report: { ok: true, anchor: 'previous-file' } });
    expect(verifyAuditLog(path)[0]).toMatchObject({ report: { ok: true, anchor: 'previous-file' } });
  });

  it('keeps maxFiles files; the oldest kept one follows pruned files, which verify says', async () => {
    const dir = tempDir();
    const w = writer(join(dir, 'audit.jsonl'), { maxBytes: 400, maxFiles: 3 });
    for (let i = 0; i < 30; i++) await w.append(body(i));
    await w.close();
    expect(logFiles(dir)).toHaveLength(3);
    // The head says rotation removed the older files: pruning, not deletion.
    const [result] = verifyAuditLog(dir, { headsDir: join(dir, 'heads') });
    expect(result).toMatchObject({ report: { ok: true, anchor: 'pruned' } });
    expect(result?.kind === 'report' && result.report.notes[0]).toContain('removed by rotation');
  });

  it('a rotated file removed from the middle of a set breaks the chain there', async () => {
    const dir = tempDir();
    const w = writer(join(dir, 'audit.jsonl'), { maxBytes: 500, maxFiles: 50 });
    for (let i = 0; i < 20; i++) await w.append(body(i));
    await w.close();
    const { unlinkSync } = await import('node:fs');
    unlinkSync(join(dir, 'audit.2.jsonl'));
    const [result] = verifyAuditLog(dir);
    expect(result).toMatchObject({ report: { ok: false, broken: { kind: 'deleted', file: join(dir, 'audit.3.jsonl'), line: 1 } } });
  });

  it('a new writer on a rotated set continues from the newest file', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const first = writer(path, { maxBytes: 300 });
    for (let i = 0; i < 5; i++) await first.append(body(i));
    await first.close();
    const second = writer(path, { maxBytes: 300 });
    await expect(second.append(body(5))).resolves.toMatchObject({ seq: 5 });
    await second.close();
    expect(verifyAuditLog(dir)[0]).toMatchObject({ report: { ok: true, records: 6 } });
  });

  it('two writers on one file (two runs in one project) keep one chain: each picks up the other\'s records', async () => {
    const path = join(tempDir(), 'audit.jsonl');
    const a = writer(path);
    const b = writer(path);
    for (let i = 0; i < 20; i++) await (i % 3 === 0 ? b : a).append(body(i));
    await Promise.all([a.close(), b.close()]);
    expect(verifyAuditLog(path, { headsDir: join(dirname(path), 'heads') })[0]).toMatchObject({ report: { ok: true, records: 20, notes: [] } });
  });
});

describe('writer: two processes, one log', () => {
  // The built writer, run in child processes.
  const source = builtFile(new URL('../src/writer.ts', import.meta.url));

  it('two runs appending to one log at once chain their records one after the other (the lock)', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const child = join(dir, 'child.mjs');
    writeFileSync(
      child,
      `import { AuditWriter } from ${JSON.stringify(source)};
const w = new AuditWriter({ path: process.argv[2], session: process.argv[3], fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 1 << 30, maxFiles: 10, headsDir: process.argv[5] });
// Both children start writing at the same moment, so their appends really overlap.
while (Date.now() < Number(process.argv[4])) await new Promise((r) => setTimeout(r, 1));
for (let i = 0; i < 1000; i++) await w.append({ type: 'result', toolCallId: 'c' + i, tool: 'echo', outcome: 'ok', isError: false, durationMs: 1, resultBytes: 2, resultSha256: '0'.repeat(64) });
await w.close();
`,
    );
    const run = promisify(execFile);
    const startAt = String(Date.now() + 3000);
    await Promise.all(['a', 'b'].map((session) => run(process.execPath, [child, path, session, startAt, join(dir, 'heads')], { timeout: scaledMs(60_000) })));
    const lines = readLines(path);
    expect(lines).toHaveLength(2000);
    // The head moved under the same lock as the records: it names the very last one.
    const [result] = verifyAuditLog(path, { headsDir: join(dir, 'heads') });
    expect(result).toMatchObject({ kind: 'report', report: { ok: true, records: 2000, notes: [] } });
    // Both runs wrote, interleaved or not, and every seq appears once.
    const records = lines.map((l) => JSON.parse(l) as { seq: number; session: string });
    expect(new Set(records.map((r) => r.session))).toEqual(new Set(['a', 'b']));
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(readdirSync(dir).sort()).toEqual(['audit.jsonl', 'child.mjs', 'heads']);
  }, scaledMs(60_000));
});

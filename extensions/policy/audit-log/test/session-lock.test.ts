import { execFile, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditWriter, headPathFor, lineHash, readHead, verifyAuditLog, type AuditRecord, type VerifyReport } from '../src/index.js';
import { readLines, readRecords, removeTempDirs, tempDir } from './helpers.js';
import { builtFile, scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 25: the writer keeps the log's lock while records flow and moves the head when it lets
 * the lock go (and on the fsync interval), instead of taking the lock and moving the head for
 * every record. What must still hold, with real processes: a run killed mid-batch leaves a chain
 * that verifies (or reports exactly its torn last line), two runs writing at once both go on
 * under the lock, and a run that ends without close() leaves no lock and an exact head.
 */

const source = builtFile(new URL('../src/writer.ts', import.meta.url));
const run = promisify(execFile);

afterEach(() => removeTempDirs());

/** A child process that appends batches of `batch` records (as parallel calls would) with an AuditWriter on `path`. */
function childScript(dir: string): string {
  const script = join(dir, 'child.mjs');
  writeFileSync(
    script,
    `import { AuditWriter } from ${JSON.stringify(source)};
const [path, session, heads, startAt, forMs, batch, lockWaitMs, close] = process.argv.slice(2);
const w = new AuditWriter({ path, session, fsync: 'interval', fsyncIntervalMs: 1000, maxBytes: 1 << 30, maxFiles: 10, headsDir: heads, lockWaitMs: Number(lockWaitMs) });
const body = (i) => ({ type: 'result', toolCallId: session + i, tool: 'echo', outcome: 'ok', isError: false, durationMs: 1, resultBytes: 2, resultSha256: '0'.repeat(64) });
while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 1));
let n = 0;
for (const end = Date.now() + Number(forMs); Date.now() < end; ) {
  await Promise.all(Array.from({ length: Number(batch) }, () => w.append(body(n++))));
  if (n === Number(batch) * 20) process.stdout.write('going\\n');
}
if (close === 'close') await w.close();
`,
  );
  return script;
}

function report(path: string, heads: string): VerifyReport {
  const [result] = verifyAuditLog(path, { headsDir: heads });
  if (result?.kind !== 'report') throw new Error(JSON.stringify(result));
  return result.report;
}

describe('the session lock with real processes', () => {
  it('a run killed in the middle of a batch: verify passes (or reports exactly the torn last line), and the next run goes on', async () => {
    const dir = tempDir();
    const path = join(dir, 'log', 'audit.jsonl');
    const heads = join(dir, 'heads');
    const child = spawn(process.execPath, [childScript(dir), path, 'killed', heads, '0', '60000', '8', '5000', 'keep'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('going') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const killed = readRecords(path).length;
    expect(killed).toBeGreaterThanOrEqual(160);
    // Killed while holding the lock: the lock names a dead process, and the head is marked.
    expect(existsSync(`${path}.lock`)).toBe(true);
    const head = readHead(headPathFor(path, heads));
    expect(head).toMatchObject({ kind: 'head', head: { writing: { session: 'killed', pid: child.pid } } });
    const before = report(path, heads);
    const torn = !readFileSync(path).toString('utf8').endsWith('\n');
    if (torn) expect(before).toMatchObject({ ok: false, broken: { kind: 'torn' } });
    else expect(before).toMatchObject({ ok: true, records: killed });

    // The next run takes the dead run's lock over, accepts its records (no head-mismatch) and goes on.
    const next = new AuditWriter({ path, session: 'next', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 1 << 30, maxFiles: 10, headsDir: heads });
    await next.append({ type: 'result', toolCallId: 'n1', tool: 'echo', outcome: 'ok', isError: false, durationMs: 1, resultBytes: 2, resultSha256: '0'.repeat(64) });
    await next.close();
    expect(next.stats.mismatches).toBe(0);
    const after = report(path, heads);
    expect(after).toMatchObject({ ok: true });
    expect(readRecords(path).filter((r) => r.type === 'head-mismatch')).toEqual([]);
    expect(readHead(headPathFor(path, heads))).toMatchObject({ kind: 'head', head: { seq: after.records - 1 } });
    expect((readHead(headPathFor(path, heads)) as { head: { writing?: unknown } }).head.writing).toBeUndefined();
  }, scaledMs(60_000));

  it('two runs writing at once both go on under the lock: neither waits the other out', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const heads = join(dir, 'heads');
    const script = childScript(dir);
    const startAt = String(Date.now() + 3000);
    // Each writes for 2.5 s; a waiter that is not let in within 1 s writes without the lock and
    // says so in the record: a busy run that never let go would show here.
    await Promise.all(['a', 'b'].map((session) => run(process.execPath, [script, path, session, heads, startAt, '2500', '4', '1000', 'close'], { timeout: scaledMs(60_000) })));
    const records = readRecords(path) as AuditRecord[];
    expect(records.filter((r) => r.lock !== undefined)).toEqual([]);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i));
    const a = records.flatMap((r, i) => (r.session === 'a' ? [i] : []));
    const b = records.flatMap((r, i) => (r.session === 'b' ? [i] : []));
    // Both wrote, and their records interleave: each run's records began before the other's ended.
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(a[0]!).toBeLessThan(b.at(-1)!);
    expect(b[0]!).toBeLessThan(a.at(-1)!);
    expect(report(path, heads)).toMatchObject({ ok: true, records: records.length, notes: [] });
    expect(readdirSync(dir).sort()).toEqual(['audit.jsonl', 'child.mjs', 'heads']);
  }, scaledMs(60_000));

  it('a run that ends without close() lets the lock go and leaves the head on its last record', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const heads = join(dir, 'heads');
    await run(process.execPath, [childScript(dir), path, 'ends', heads, '0', '200', '4', '5000', 'keep'], { timeout: scaledMs(60_000) });
    expect(existsSync(`${path}.lock`)).toBe(false);
    const lines = readLines(path);
    expect(readHead(headPathFor(path, heads))).toMatchObject({ kind: 'head', head: { seq: lines.length - 1, hash: lineHash(lines.at(-1)!) } });
    expect(report(path, heads)).toMatchObject({ ok: true, records: lines.length, notes: [] });
  }, scaledMs(60_000));
});

describe('a head marked "writing" explains only that run\'s records', () => {
  async function killedRun() {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const heads = join(dir, 'heads');
    const w = new AuditWriter({ path, session: 'gone', fsync: 'never', fsyncIntervalMs: 60_000, maxBytes: 1 << 30, maxFiles: 10, headsDir: heads });
    for (let i = 0; i < 6; i++) await w.append({ type: 'result', toolCallId: `c${i}`, tool: 'echo', outcome: 'ok', isError: false, durationMs: 1, resultBytes: 2, resultSha256: '0'.repeat(64) });
    // As if killed: the head stays where the hold began (marked), the lock is never let go.
    return { dir, path, heads, w };
  }

  it('while the run holds the lock, verify accepts its records after the head, with a note', async () => {
    const { path, heads, w } = await killedRun();
    expect(readHead(headPathFor(path, heads))).toMatchObject({ head: { seq: 0, writing: { session: 'gone' } } });
    const live = report(path, heads);
    expect(live).toMatchObject({ ok: true, records: 6 });
    expect(live.notes.join()).toContain("the 5 record(s) after it are session gone's");
    await w.close();
    expect(report(path, heads)).toMatchObject({ ok: true, records: 6, notes: [] });
  });

  it('a record of another session appended behind a killed run\'s marked head: verify says appended, the next run records a mismatch', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const heads = join(dir, 'heads');
    const child = spawn(process.execPath, [childScript(dir), path, 'killed', heads, '0', '60000', '2', '5000', 'keep'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('going') && resolve()));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    // Seal a torn last line by hand, so that only the forged record is left to explain.
    if (!readFileSync(path, 'utf8').endsWith('\n')) writeFileSync(path, `${readLines(path).slice(0, -1).join('\n')}\n`);
    const lines = readLines(path);
    const last = JSON.parse(lines.at(-1)!) as AuditRecord;
    appendFileSync(path, `${JSON.stringify({ ...last, seq: last.seq + 1, session: 'forger', toolCallId: 'x', prev: lineHash(lines.at(-1)!) })}\n`);
    expect(report(path, heads)).toMatchObject({ ok: false, broken: { kind: 'appended' } });
    const next = new AuditWriter({ path, session: 'next', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 1 << 30, maxFiles: 10, headsDir: heads });
    await next.append({ type: 'result', toolCallId: 'n1', tool: 'echo', outcome: 'ok', isError: false, durationMs: 1, resultBytes: 2, resultSha256: '0'.repeat(64) });
    await next.close();
    expect(next.stats.mismatches).toBe(1);
    expect(report(path, heads)).toMatchObject({ ok: false, broken: { kind: 'head-mismatch' } });
  }, scaledMs(60_000));
});

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditWriter, verifyAuditLog, type AuditRecord, type VerifyReport, type WriterOptions } from '../src/index.js';
import { LOCK_WAIT_MS } from '../src/lock.js';
import { readRecords, removeTempDirs, tempDir, resultBody } from './helpers.js';
import { builtFile, scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 9: a stale or planted `audit.jsonl.lock` must not make a record disappear while verify
 * still says intact. Decision: the record is always written; when the lock could not be had,
 * the record says why (its `lock` field) and verify shows it as a note.
 */

const writers: AuditWriter[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(writers.splice(0).map((w) => w.close().catch(() => undefined)));
  removeTempDirs();
});

function setup(options: Partial<WriterOptions> = {}) {
  const dir = tempDir();
  const path = join(dir, 'log', 'audit.jsonl');
  mkdirSync(join(dir, 'log'));
  const heads = join(dir, 'heads');
  const w = new AuditWriter({ path, session: 's', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 1 << 20, maxFiles: 10, headsDir: heads, ...options });
  writers.push(w);
  const verify = (): VerifyReport => {
    const [result] = verifyAuditLog(path, { headsDir: heads });
    if (result?.kind !== 'report') throw new Error(JSON.stringify(result));
    return result.report;
  };
  return { dir, path, lock: `${path}.lock`, w, verify };
}

const body = resultBody;

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  for (const until = Date.now() + ms; !condition(); ) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Set a file's times `seconds` into the past. */
function age(path: string, seconds: number): void {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(path, then, then);
}

describe('a planted or stale lock never makes a record disappear', () => {
  it('a planted lock folder (with content, made just now): the record is written at once, saying so', async () => {
    const s = setup();
    mkdirSync(s.lock);
    writeFileSync(join(s.lock, 'x'), 'planted');
    const started = Date.now();
    const record = await s.w.append(body(0));
    expect(Date.now() - started).toBeLessThan(scaledMs(1000, { below: LOCK_WAIT_MS }));
    expect(record.lock).toMatch(/audit\.jsonl\.lock is a folder; it is not an Airlock lock, so the record was written without the lock/);
    expect(readRecords(s.path)).toHaveLength(1);
    // Not ours to delete.
    expect(existsSync(join(s.lock, 'x'))).toBe(true);
    const report = s.verify();
    expect(report).toMatchObject({ ok: true, records: 1 });
    expect(report.notes.join()).toContain('1 record(s) were written without the log\'s lock');
  });

  it('a planted lock file that names no owner', async () => {
    const s = setup();
    writeFileSync(s.lock, 'garbage');
    age(s.lock, 2);
    const record = await s.w.append(body(0));
    expect(record.lock).toContain('names no owner');
    expect(readRecords(s.path)).toHaveLength(1);
  });

  it('a lock older than any real holder is taken over (and removed when done)', async () => {
    const s = setup();
    // Names a live process (this one), but is an hour old: no record takes that long.
    writeFileSync(s.lock, JSON.stringify({ host: 'elsewhere', pid: process.pid, token: 'old' }));
    age(s.lock, 3600);
    const record = await s.w.append(body(0));
    expect(record.lock).toMatch(/took over .*: it was 3600 s old/);
    // Kept while records flow, let go once the writer is idle.
    await waitFor(() => !existsSync(s.lock));
    expect(s.verify()).toMatchObject({ ok: true, records: 1 });
    // The next record takes the lock normally.
    expect((await s.w.append(body(1))).lock).toBeUndefined();
  });

  it('the lock of a process that is gone is taken over at once', async () => {
    const s = setup();
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    writeFileSync(s.lock, JSON.stringify({ host: hostname(), pid: dead.pid, token: 't' }));
    const started = Date.now();
    const record = await s.w.append(body(0));
    expect(Date.now() - started).toBeLessThan(scaledMs(1000, { below: LOCK_WAIT_MS }));
    expect(record.lock).toContain(`process ${dead.pid}, which held it, is no longer running`);
  });
});

describe('a lock held by a live process in another process', () => {
  const lockSource = builtFile(new URL('../src/lock.ts', import.meta.url));

  /** Another process takes the log's lock with the real lockLog and holds it for `ms`. */
  async function holder(dir: string, path: string, ms: number): Promise<ChildProcess> {
    const script = join(dir, 'holder.mjs');
    writeFileSync(
      script,
      `import { lockLog } from ${JSON.stringify(lockSource)};
const hold = await lockLog(process.argv[2]);
process.stdout.write('held\\n');
await new Promise((r) => setTimeout(r, Number(process.argv[3])));
hold.release();
`,
    );
    const child = spawn(process.execPath, [script, path, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      child.on('exit', (code) => reject(new Error(`holder exited early (${code})`)));
    });
    return child;
  }

  it('a short hold: the record waits for it and is written under the lock', async () => {
    const s = setup();
    const child = await holder(s.dir, s.path, 600);
    const started = Date.now();
    const record = await s.w.append(body(0));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(record.lock).toBeUndefined();
    await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(undefined)));
    // The writer keeps the lock while records flow; closed, it lets go and leaves nothing behind.
    await s.w.close();
    expect(readdirSync(join(s.dir, 'log'))).toEqual(['audit.jsonl']);
    expect(s.verify()).toMatchObject({ ok: true, records: 1, notes: [] });
  }, scaledMs(20_000));

  it('a hold longer than any record takes: written anyway after the wait, saying who held it; the next record does not wait again', async () => {
    const s = setup({ lockWaitMs: 400 });
    const child = await holder(s.dir, s.path, 60_000);
    const first = await s.w.append(body(0));
    expect(first.lock).toContain(`held by process ${child.pid} on ${hostname()}`);
    const started = Date.now();
    const second = await s.w.append(body(1));
    expect(Date.now() - started).toBeLessThan(scaledMs(300, { below: 400 }));
    expect(second.lock).toBeDefined();
    const records = readRecords(s.path) as AuditRecord[];
    expect(records.map((r) => r.seq)).toEqual([0, 1]);
    const report = s.verify();
    expect(report).toMatchObject({ ok: true, records: 2 });
    expect(report.notes.join()).toContain('2 record(s) were written without the log\'s lock');
  }, scaledMs(20_000));
});

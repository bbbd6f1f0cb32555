import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditWriter, lineHash, verifyAuditLog, type AuditRecord, type VerifyReport } from '../src/index.js';
import { readLines, removeTempDirs, resultBody, tempDir } from './helpers.js';

const writers: AuditWriter[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.close()));
  removeTempDirs();
});

function writer(path: string, options: Partial<ConstructorParameters<typeof AuditWriter>[0]> = {}): AuditWriter {
  const w = new AuditWriter({ path, session: 's', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 10 * 1024 * 1024, maxFiles: 10, headsDir: join(dirname(path), 'heads'), ...options });
  writers.push(w);
  return w;
}

/** A log of `n` records written by the real writer. */
async function log(n: number): Promise<string> {
  const path = join(tempDir(), 'audit.jsonl');
  const w = writer(path);
  for (let i = 0; i < n; i++) await w.append(resultBody(i));
  await w.close();
  return path;
}

function report(target: string, options: { withHead?: boolean } = {}): VerifyReport {
  const [result] = verifyAuditLog(target, options.withHead ? { headsDir: join(dirname(target), 'heads') } : {});
  if (result?.kind !== 'report') throw new Error(`expected a report, got ${JSON.stringify(result)}`);
  return result.report;
}

function rewrite(path: string, edit: (lines: string[]) => string[]): void {
  writeFileSync(path, `${edit(readLines(path)).join('\n')}\n`);
}

describe('verify: an untouched log', () => {
  it('is intact, chains from genesis and reports the head hash', async () => {
    const path = await log(5);
    const r = report(path, { withHead: true });
    expect(r).toMatchObject({ ok: true, records: 5, anchor: 'genesis', notes: [] });
    expect(r.head).toBe(lineHash(readLines(path)[4]!));
  });
});

describe('verify: tampering, first broken link', () => {
  it('an edited field: the NEXT line is where the chain breaks, and it names the edited line', async () => {
    const path = await log(6);
    rewrite(path, (lines) => lines.map((l, i) => (i === 2 ? l.replace('"outcome":"ok"', '"outcome":"denied"') : l)));
    expect(report(path).broken).toMatchObject({ kind: 'edited', line: 4, message: expect.stringContaining('line 3 of') });
  });

  it('an edit that breaks the JSON is reported on that line', async () => {
    const path = await log(4);
    rewrite(path, (lines) => lines.map((l, i) => (i === 1 ? l.slice(0, -5) : l)));
    expect(report(path).broken).toMatchObject({ kind: 'edited', line: 2, message: expect.stringContaining('not valid JSON') });
  });

  it('a deleted line: the seq gap says which records are missing', async () => {
    const path = await log(6);
    rewrite(path, (lines) => lines.filter((_, i) => i !== 3));
    expect(report(path).broken).toMatchObject({ kind: 'deleted', line: 4, message: expect.stringContaining('seq 3') });
  });

  it('the first line deleted: the log no longer starts at genesis', async () => {
    const path = await log(3);
    rewrite(path, (lines) => lines.slice(1));
    expect(report(path).broken).toMatchObject({ kind: 'deleted', line: 1 });
  });

  it('two lines swapped: reordered', async () => {
    const path = await log(6);
    rewrite(path, (lines) => [lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)]);
    expect(report(path).broken).toMatchObject({ kind: 'reordered', line: 2 });
  });

  it('the last line cut mid-way: torn', async () => {
    const path = await log(4);
    const size = readFileSync(path).length;
    truncateSync(path, size - 30);
    expect(report(path).broken).toMatchObject({ kind: 'torn', line: 4 });
  });

  it('a forged line with a correct prev and seq passes itself, and is caught at the next link (inserted)', async () => {
    const path = await log(5);
    const lines = readLines(path);
    const forged = JSON.stringify({ ...(JSON.parse(lines[2]!) as AuditRecord), seq: 3, toolCallId: 'forged', prev: lineHash(lines[2]!) });
    rewrite(path, () => [...lines.slice(0, 3), forged, ...lines.slice(3)]);
    expect(report(path).broken).toMatchObject({ kind: 'inserted', line: 5, message: expect.stringContaining('line 4 of') });
  });

  it('what the chain cannot see: a forged record appended at the end, or the last lines removed (compare the head)', async () => {
    const path = await log(4);
    const before = report(path).head;
    const lines = readLines(path);
    const last = JSON.parse(lines[3]!) as AuditRecord;
    appendFileSync(path, `${JSON.stringify({ ...last, seq: 4, toolCallId: 'forged', prev: lineHash(lines[3]!) })}\n`);
    const after = report(path);
    expect(after.ok).toBe(true);
    // Only an anchor kept elsewhere tells: the head moved.
    expect(after.head).not.toBe(before);
  });

  it('a seq edited together with nothing else breaks on that line (sequence)', async () => {
    const path = await log(3);
    rewrite(path, (lines) => lines.map((l, i) => (i === 0 ? l.replace('"seq":0', '"seq":7') : l)));
    expect(report(path).broken).toMatchObject({ kind: 'sequence', line: 1 });
  });
});

describe('writer: torn last line after a crash', () => {
  it('is sealed at the next start with a recovery record; verify accepts it and says so', async () => {
    const path = await log(3);
    const fragment = '{"v":1,"seq":3,"time":"2026-';
    appendFileSync(path, fragment);
    expect(report(path).broken?.kind).toBe('torn');
    const w = writer(path);
    const record = await w.append(resultBody(9));
    expect(w.stats.recoveries).toBe(1);
    const records = readLines(path);
    expect(records).toHaveLength(6);
    expect(JSON.parse(records[4]!)).toMatchObject({ type: 'recovery', seq: 3, torn: { bytes: Buffer.byteLength(fragment), sha256: lineHash(fragment) }, prev: lineHash(records[2]!) });
    expect(record).toMatchObject({ seq: 4, prev: lineHash(records[4]!) });
    const r = report(path);
    expect(r).toMatchObject({ ok: true, records: 5 });
    expect(r.notes.join()).toContain('torn by a crash');
  });
});

import { existsSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { AuditWriter, headPathFor, installAuditLog, lineHash, readHead, verifyAuditLog, type VerifyReport, type WriterOptions } from '../src/index.js';
import { apiFor, echo, readLines, readRecords, removeTempDirs, tempDir, track, resultBody } from './helpers.js';

/**
 * Issue 9: deleting, truncating or replacing the log must be visible. The chain's head (seq and
 * hash of the last record) is kept outside the log's folder and moved with every record; verify
 * compares the end of the chain with it.
 */

const writers: AuditWriter[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.close().catch(() => undefined)));
  removeTempDirs();
});

/** A machine: the log's folder, and a heads folder elsewhere (as in the user's state folder). */
function machine() {
  const base = tempDir();
  const dir = join(base, 'audit', 'shop-1a2b3c4d');
  return { base, dir, path: join(dir, 'audit.jsonl'), heads: join(base, 'audit-heads') };
}

function writer(m: ReturnType<typeof machine>, options: Partial<WriterOptions> = {}): AuditWriter {
  const w = new AuditWriter({ path: m.path, session: 's', fsync: 'never', fsyncIntervalMs: 1000, maxBytes: 1 << 20, maxFiles: 10, headsDir: m.heads, ...options });
  writers.push(w);
  return w;
}

const body = resultBody;

/** One run that writes `n` records and ends. */
async function run(m: ReturnType<typeof machine>, n: number, options: Partial<WriterOptions> = {}): Promise<AuditWriter> {
  const w = writer(m, options);
  for (let i = 0; i < n; i++) await w.append(body(i));
  await w.close();
  return w;
}

function verify(m: ReturnType<typeof machine>, target = m.dir): VerifyReport {
  const [result] = verifyAuditLog(target, { headsDir: m.heads });
  if (result?.kind !== 'report') throw new Error(`expected a report, got ${JSON.stringify(result)}`);
  return result.report;
}

describe('the head: where it lives and what it holds', () => {
  it('is written with the first record, outside the log folder, and names the last record', async () => {
    const m = machine();
    await run(m, 3);
    const headFile = headPathFor(m.path, m.heads);
    expect(dirname(headFile)).toBe(m.heads);
    expect(readdirSync(m.dir)).toEqual(['audit.jsonl']);
    const read = readHead(headFile);
    expect(read).toMatchObject({ kind: 'head', head: { seq: 2, hash: lineHash(readLines(m.path)[2]!), pruned: 0, log: m.path } });
    expect(verify(m)).toMatchObject({ ok: true, records: 3, headFile, notes: [] });
  });

  it('a run that writes nothing leaves no head, and a first run starts both', async () => {
    const m = machine();
    writer(m);
    expect(existsSync(m.heads)).toBe(false);
    await run(m, 1);
    expect(verify(m)).toMatchObject({ ok: true, records: 1 });
  });

  it('the extension keeps the head in the user state folder, even when the log is inside the project', async () => {
    const home = tempDir();
    const project = tempDir();
    const kernel = createKernel({ cwd: project, spill: { dir: join(project, 'spill') } });
    kernel.registry.register(echo, { source: 'sdk' });
    const logger = track(installAuditLog(apiFor(kernel, project, []), { path: 'logs/audit.jsonl', fsync: 'never' }, { env: {}, home }));
    await kernel.executeToolCall({ id: 'c1', name: 'echo', arguments: { text: 'hi' } });
    // The head moves when the run lets the log's lock go (here: at close).
    await logger.close();
    const headFile = logger.writer.headPath;
    expect(headFile.startsWith(join(home, '.local', 'state', 'airlock', 'audit-heads'))).toBe(true);
    expect(readHead(headFile)).toMatchObject({ kind: 'head', head: { seq: 1 } });
    expect(readdirSync(join(project, 'logs'))).toEqual(['audit.jsonl']);
  });
});

describe('the head shows what the chain alone cannot', () => {
  it('rm through a link to the log folder (the reported attack): verify says the log is gone, then that a run found it gone', async () => {
    const m = machine();
    await run(m, 5);
    const link = join(m.base, 'adl');
    symlinkSync(m.dir, link);
    rmSync(join(link, 'audit.jsonl'), { force: true });
    // Before the next run: the folder holds no log, the head says seq 4.
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'truncated' } });
    expect(verify(m).broken!.message).toContain('says it ended at seq 4');
    // The next run starts a fresh chain, but first records what it found.
    const next = await run(m, 3);
    expect(next.stats.mismatches).toBe(1);
    const records = readRecords(m.path);
    expect(records[0]).toMatchObject({ type: 'head-mismatch', seq: 0, head: { seq: 4 }, found: null });
    const report = verify(m);
    expect(report).toMatchObject({ ok: false, broken: { kind: 'head-mismatch', line: 1 } });
    expect(report.broken!.message).toContain('the head said seq 4, but the log held no records');
    expect(report.broken!.message).toContain('move the log folder and its head file aside');
  });

  it('the last records cut off: "the log ends at seq 2, the head says seq 6"', async () => {
    const m = machine();
    await run(m, 7);
    writeFileSync(m.path, `${readLines(m.path).slice(0, 3).join('\n')}\n`);
    const report = verify(m);
    expect(report).toMatchObject({ ok: false, broken: { kind: 'truncated', file: m.path, line: 3 } });
    expect(report.broken!.message).toContain('The log ends at seq 2, but the head');
    expect(report.broken!.message).toContain('says seq 6: 4 record(s) were cut off the end');
  });

  it('the middle cut out: the chain reports it (and the head agrees with the end)', async () => {
    const m = machine();
    await run(m, 7);
    const lines = readLines(m.path);
    writeFileSync(m.path, `${[...lines.slice(0, 2), ...lines.slice(5)].join('\n')}\n`);
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'deleted', line: 3 } });
  });

  it('the whole log replaced by a fresh, valid chain', async () => {
    const m = machine();
    await run(m, 4);
    // A valid chain of 9 records written elsewhere by a real writer, moved over the log.
    const forged = machine();
    await run(forged, 9);
    renameSync(forged.path, m.path);
    expect(verifyAuditLog(m.path, {})[0]).toMatchObject({ report: { ok: true } }); // the chain alone: intact
    const report = verify(m);
    expect(report).toMatchObject({ ok: false, broken: { kind: 'replaced' } });
    expect(report.broken!.message).toContain('does not hold the record the head');
    // A shorter forged chain reads as a cut end, which the message says may be a replacement.
    const shorter = machine();
    await run(shorter, 2);
    renameSync(shorter.path, m.path);
    expect(verify(m).broken!.message).toMatch(/ends at seq 1, but the head .* says seq 3: .* or the log was replaced/);
  });

  it('records appended by something that did not move the head', async () => {
    const m = machine();
    await run(m, 3);
    const head = readFileSync(headPathFor(m.path, m.heads));
    await run(m, 3);
    writeFileSync(headPathFor(m.path, m.heads), head); // the head as it was after the first run
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'appended' } });
  });

  it('a run stopped between a record and its head (one record ahead): a note, and the next run goes on', async () => {
    const m = machine();
    await run(m, 3);
    const head = readFileSync(headPathFor(m.path, m.heads));
    await run(m, 1);
    writeFileSync(headPathFor(m.path, m.heads), head);
    const report = verify(m);
    expect(report).toMatchObject({ ok: true, records: 4 });
    expect(report.notes.join()).toContain('one record before the end');
    const next = await run(m, 1);
    expect(next.stats.mismatches).toBe(0);
    expect(verify(m)).toMatchObject({ ok: true, records: 5, notes: [] });
  });

  it('the head deleted: verify says so; the next run records it; verify keeps saying it', async () => {
    const m = machine();
    await run(m, 3);
    unlinkSync(headPathFor(m.path, m.heads));
    const report = verify(m);
    expect(report).toMatchObject({ ok: false, broken: { kind: 'head-missing' } });
    expect(report.broken!.message).toContain('the head was deleted');
    await run(m, 1);
    expect(readRecords(m.path)[3]).toMatchObject({ type: 'head-mismatch', head: null, found: { seq: 2 } });
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'head-mismatch', line: 4 } });
  });

  it('a damaged head is reported, not trusted', async () => {
    const m = machine();
    await run(m, 2);
    writeFileSync(headPathFor(m.path, m.heads), '{"v":1,"seq":');
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'head-missing' } });
    expect(verify(m).broken!.message).toContain('is not valid JSON');
  });
});

describe('the head across rotation', () => {
  it('rotated files deleted by hand (not by rotation) are reported; pruning by maxFiles is not', async () => {
    const m = machine();
    await run(m, 30, { maxBytes: 700, maxFiles: 50 });
    expect(verify(m)).toMatchObject({ ok: true, records: 30, anchor: 'genesis' });
    unlinkSync(join(m.dir, 'audit.1.jsonl'));
    unlinkSync(join(m.dir, 'audit.2.jsonl'));
    const report = verify(m);
    expect(report).toMatchObject({ ok: false, broken: { kind: 'files-deleted', file: join(m.dir, 'audit.1.jsonl') } });
    expect(report.broken!.message).toContain(`${join(m.dir, 'audit.1.jsonl')} to ${join(m.dir, 'audit.2.jsonl')} are missing, but rotation removed only none`);
  });

  it('after pruning, deleting the oldest kept file is reported', async () => {
    const m = machine();
    await run(m, 40, { maxBytes: 400, maxFiles: 3 });
    const report = verify(m);
    expect(report).toMatchObject({ ok: true, anchor: 'pruned' });
    const head = readHead(headPathFor(m.path, m.heads));
    const pruned = head.kind === 'head' ? head.head.pruned : 0;
    expect(pruned).toBeGreaterThan(0);
    unlinkSync(join(m.dir, `audit.${pruned + 1}.jsonl`));
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'files-deleted' } });
  });

  it('the newest files cut off (the active one and the last rotated one)', async () => {
    const m = machine();
    await run(m, 30, { maxBytes: 700, maxFiles: 50 });
    const rotated = readdirSync(m.dir).filter((n) => /^audit\.\d+\.jsonl$/.test(n)).length;
    unlinkSync(m.path);
    unlinkSync(join(m.dir, `audit.${rotated}.jsonl`));
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'truncated' } });
  });
});

describe('the head while a run is going on', () => {
  it('deleted mid-run: the run records the mismatch at its next record, before its own', async () => {
    const m = machine();
    const w = writer(m);
    for (let i = 0; i < 4; i++) await w.append(body(i));
    unlinkSync(headPathFor(m.path, m.heads));
    await w.append(body(4));
    expect(w.stats.mismatches).toBe(1);
    expect(readRecords(m.path)[4]).toMatchObject({ type: 'head-mismatch', head: null, found: { seq: 3 } });
    expect(readRecords(m.path)[5]).toMatchObject({ type: 'result', seq: 5 });
    await w.close();
    expect(verify(m)).toMatchObject({ ok: false, broken: { kind: 'head-mismatch' } });
  });

  it('a shorter head written over a longer one leaves nothing of the old behind', async () => {
    const m = machine();
    const w = writer(m);
    for (let i = 0; i < 12; i++) await w.append(body(i));
    await w.close();
    const text = readFileSync(headPathFor(m.path, m.heads), 'utf8');
    expect(text.length % 4096).toBe(0);
    expect(JSON.parse(text)).toMatchObject({ seq: 11 });
  });
});

describe('the person running the agent hears of it', () => {
  it('a log cut between two runs: the next run warns through the host log, once', async () => {
    const home = tempDir();
    const project = tempDir();
    const start = () => {
      const kernel = createKernel({ cwd: project, spill: { dir: join(project, 'spill') } });
      kernel.registry.register(echo, { source: 'sdk' });
      const warnings: string[] = [];
      const api = { ...apiFor(kernel, project, []), log: { debug() {}, info() {}, error() {}, warn: (m: string) => void warnings.push(m) } };
      const logger = track(installAuditLog(api, { fsync: 'never' }, { env: {}, home }));
      return { kernel, logger, warnings };
    };
    const first = start();
    for (let i = 0; i < 3; i++) await first.kernel.executeToolCall({ id: `c${i}`, name: 'echo', arguments: { text: 'hi' } });
    await first.logger.close();
    expect(first.warnings).toEqual([]);
    const path = first.logger.writer.path;
    writeFileSync(path, `${readLines(path).slice(0, 2).join('\n')}\n`);
    const second = start();
    await second.kernel.executeToolCall({ id: 'd1', name: 'echo', arguments: { text: 'hi' } });
    await second.kernel.executeToolCall({ id: 'd2', name: 'echo', arguments: { text: 'hi' } });
    expect(second.warnings).toHaveLength(1);
    expect(second.warnings[0]).toContain('did not end where its head said (head: seq 5, log: seq 1)');
    expect(second.warnings[0]).toContain('airlock audit verify');
  });
});

describe('the head file itself', () => {
  it('a link planted at the head path is not written through: the file it names stays as it was', async () => {
    const m = machine();
    await run(m, 1);
    const victim = join(m.base, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const headFile = headPathFor(m.path, m.heads);
    unlinkSync(headFile);
    symlinkSync(victim, headFile);
    const w = writer(m);
    await expect(w.append(body(1))).rejects.toThrow(/could not update the head .* \(ELOOP\)/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    // The record itself was written (after the head-mismatch record: the head was not a head), and verify does not call the log intact.
    expect(readRecords(m.path).map((r) => r.type)).toEqual(['result', 'head-mismatch', 'result']);
    expect(verify(m).ok).toBe(false);
  });
});

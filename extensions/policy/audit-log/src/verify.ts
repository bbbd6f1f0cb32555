import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { schemaProblemLines } from '@airlock/toolkit/util';
import { Compile } from 'typebox/compile';
import { GENESIS, lineHash } from '@airlock/audit-format';
import { headPathFor, headsInFolder, readHead, realLogPath } from './head.js';
import { AuditRecord } from './record.js';
import { checkHead, mismatchMessage, type HeadCheck } from './verify-head.js';
import { listSet, parseLogName, rotatedPath, setsInFolder, type LogSet } from './rotation.js';

/**
 * `airlock audit verify`: walk the chain and report the FIRST broken link, saying what kind of
 * damage explains it. What the chain proves and what it does not is in the README ("What the
 * chain proves").
 */

export type BreakKind =
  | 'edited'
  | 'deleted'
  | 'reordered'
  | 'inserted'
  | 'torn'
  | 'sequence'
  /** The log ends before the record the head names: records cut off the end, or the log deleted. */
  | 'truncated'
  /** The log does not hold the record the head names: a different chain took its place. */
  | 'replaced'
  /** Records follow the head's record that no Airlock run accounted for in the head. */
  | 'appended'
  /** Rotated files are missing that rotation did not remove. */
  | 'files-deleted'
  /** The log has records but no head (deleted), or the head cannot be read. */
  | 'head-missing'
  /** A run found the log did not match its head and recorded it (a head-mismatch record). */
  | 'head-mismatch';

export interface Break {
  kind: BreakKind;
  file: string;
  /** 1-based line number in that file; absent when the break is about the log as a whole (its end, its files). */
  line?: number;
  message: string;
}

export interface VerifyOptions {
  /**
   * The folder of chain heads (location.ts `headsDir`). Given, the end of the chain is checked
   * against its head; without it, only the chain itself is checked, and a note says so.
   */
  headsDir?: string;
}

export interface VerifiedFile {
  path: string;
  records: number;
  firstSeq?: number;
  lastSeq?: number;
}

export interface VerifyReport {
  ok: boolean;
  files: VerifiedFile[];
  records: number;
  /**
   * What the first record was checked against: the genesis value, the last line of the file before
   * (verifying one file of a set), or nothing because older files were removed by rotation.
   */
  anchor: 'genesis' | 'previous-file' | 'pruned';
  /** SHA-256 of the last line: write it down elsewhere to detect a later rewrite of the tail. */
  head?: string;
  /** The head file the end of the chain was checked against (absent: not checked). */
  headFile?: string;
  notes: string[];
  broken?: Break;
}

export type VerifyResult = { kind: 'report'; report: VerifyReport } | { kind: 'unreadable'; message: string; fix: string };

const RecordCheck = Compile(AuditRecord);

interface Line {
  file: string;
  line: number;
  hash: string;
  complete: boolean;
  record: AuditRecord | undefined;
  problem: string | undefined;
}

interface Anchor {
  kind: VerifyReport['anchor'];
  hash?: string;
  seq?: number;
}

/**
 * Verify a file (with the file before it as its anchor) or every set of a folder, oldest file
 * first; with `headsDir`, also whether each chain ends where its head says.
 *
 * @example verifyAuditLog('/home/ada/.local/state/airlock/audit/shop-1a2b3c4d', { headsDir: '/home/ada/.local/state/airlock/audit-heads' })
 */
export function verifyAuditLog(target: string, options: VerifyOptions = {}): VerifyResult[] {
  let isDir: boolean;
  try {
    isDir = statSync(target).isDirectory();
  } catch (error) {
    // A log folder deleted as a whole still has its heads: that is a finding, not "nothing to check".
    const orphans = options.headsDir === undefined ? [] : headsInFolder(options.headsDir, realLogPath(target));
    if (orphans.length === 0) return [unreadable(target, error)];
    return orphans.map((o) => verifyFiles([], { kind: 'genesis', hash: GENESIS }, { path: o.path, read: { kind: 'head', head: o.head }, active: o.head.log, pruned: undefined }));
  }
  if (!isDir) return [verifyFiles([target], anchorForFile(target), headForFile(target, options))];
  const sets = setsInFolder(target).filter((s) => s.rotated.length > 0 || existsSync(s.active));
  // Sets whose files are all gone but whose head remains.
  if (options.headsDir !== undefined) {
    const known = new Set(sets.map((s) => realLogPath(s.active)));
    for (const orphan of headsInFolder(options.headsDir, realLogPath(target))) {
      if (!known.has(orphan.head.log)) sets.push(listSet(orphan.head.log));
    }
  }
  if (sets.length === 0)
    return [{ kind: 'unreadable', message: `${target} holds no audit log (*.jsonl).`, fix: 'Give the folder the audit log is in, or the file itself.' }];
  return sets.map((set) => verifyFiles(filesOf(set), anchorForSet(set), headForSet(set, options)));
}

function headForSet(set: LogSet, options: VerifyOptions): HeadCheck | undefined {
  if (options.headsDir === undefined) return undefined;
  const path = headPathFor(set.active, options.headsDir);
  return { path, read: readHead(path), active: set.active, pruned: { oldest: set.rotated[0]?.n } };
}

/** Only the active file is checked against the head: a rotated file is not the end of the chain. */
function headForFile(file: string, options: VerifyOptions): HeadCheck | 'not-the-end' | undefined {
  if (options.headsDir === undefined) return undefined;
  if (parseLogName(basename(file))?.n !== undefined) return 'not-the-end';
  const path = headPathFor(file, options.headsDir);
  return { path, read: readHead(path), active: file, pruned: undefined };
}

function filesOf(set: LogSet): string[] {
  return [...set.rotated.map((r) => r.path), ...(existsSync(set.active) ? [set.active] : [])];
}

function anchorForSet(set: LogSet): Anchor {
  const oldest = set.rotated[0];
  // Rotated numbers start at 1: an oldest file with a higher number means maxFiles pruned the ones before it.
  return oldest !== undefined && oldest.n > 1 ? { kind: 'pruned' } : { kind: 'genesis', hash: GENESIS };
}

function anchorForFile(file: string): Anchor {
  const parsed = parseLogName(basename(file));
  if (parsed === undefined) return { kind: 'genesis', hash: GENESIS };
  const set = listSet(join(dirname(file), `${parsed.stem}.jsonl`));
  let before: string | undefined;
  if (parsed.n === undefined) before = set.rotated.at(-1)?.path;
  else if (parsed.n > 1) {
    before = rotatedPath(set.dir, set.stem, parsed.n - 1);
    if (!existsSync(before)) return { kind: 'pruned' };
  }
  if (before === undefined) return { kind: 'genesis', hash: GENESIS };
  const lines = readLines(before);
  const last = lines.filter((l) => l.complete).at(-1);
  if (last === undefined) return { kind: 'genesis', hash: GENESIS };
  return { kind: 'previous-file', hash: last.hash, ...(last.record ? { seq: last.record.seq } : {}) };
}

function verifyFiles(paths: string[], anchor: Anchor, head: HeadCheck | 'not-the-end' | undefined): VerifyResult {
  const lines: Line[] = [];
  const files: VerifiedFile[] = [];
  for (const path of paths) {
    let fileLines: Line[];
    try {
      fileLines = readLines(path);
    } catch (error) {
      return unreadable(path, error);
    }
    lines.push(...fileLines);
    const records = fileLines.filter((l) => l.record !== undefined).map((l) => l.record!);
    files.push({
      path,
      records: records.length,
      ...(records[0] === undefined ? {} : { firstSeq: records[0].seq, lastSeq: records.at(-1)!.seq }),
    });
  }
  const notes: string[] = [];
  if (anchor.kind === 'pruned') notes.push(`The oldest file (${paths[0]}) follows files removed by rotation: its first link cannot be checked.`);
  let broken = walk(lines, anchor, notes);
  if (head === undefined) notes.push('The end of the chain was not checked against a head (--no-head, or no head folder given).');
  else if (head === 'not-the-end') notes.push('A rotated file is not the end of the chain: verify the folder to check the end against its head.');
  else if (broken === undefined) broken = checkHead(lines, head, notes, paths.at(-1) ?? head.active);
  const lock = lines.filter((l) => l.record?.lock !== undefined);
  if (lock.length > 0) notes.push(`${lock.length} record(s) were written without the log's lock, e.g. line ${lock[0]!.line} of ${lock[0]!.file}: ${lock[0]!.record!.lock}.`);
  const report: VerifyReport = {
    ok: broken === undefined,
    files,
    records: files.reduce((n, f) => n + f.records, 0),
    anchor: anchor.kind,
    ...(lines.length > 0 && broken === undefined ? { head: lines.at(-1)!.hash } : {}),
    ...(head === undefined || head === 'not-the-end' ? {} : { headFile: head.path }),
    notes,
    ...(broken === undefined ? {} : { broken }),
  };
  return { kind: 'report', report };
}

/** Split a file into lines with their hashes and parsed records. */
function readLines(path: string): Line[] {
  const bytes = readFileSync(path);
  const out: Line[] = [];
  let start = 0;
  let n = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    const complete = end !== -1;
    const raw = bytes.subarray(start, complete ? end : bytes.length);
    n += 1;
    const { record, problem } = parse(raw);
    out.push({ file: path, line: n, hash: lineHash(raw), complete, record, problem });
    start = complete ? end + 1 : bytes.length;
  }
  return out;
}

function parse(raw: Buffer): { record: AuditRecord | undefined; problem: string | undefined } {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    return { record: undefined, problem: 'it is not valid JSON' };
  }
  if (RecordCheck.Check(value)) return { record: value, problem: undefined };
  const first = schemaProblemLines(AuditRecord, value)[0] ?? 'wrong shape';
  return { record: undefined, problem: `it is not an audit record (${first})` };
}

function walk(lines: Line[], anchor: Anchor, notes: string[]): Break | undefined {
  const firstIndexOf = new Map<string, number>();
  lines.forEach((l, i) => {
    if (!firstIndexOf.has(l.hash)) firstIndexOf.set(l.hash, i);
  });
  const where = (l: Line) => `line ${l.line} of ${l.file}`;
  let expected = anchor.hash;
  let expectedSeq = anchor.seq === undefined ? (anchor.kind === 'genesis' ? 0 : undefined) : anchor.seq + 1;
  let lastGood: Line | undefined;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const at = { file: line.file, line: line.line };
    if (!line.complete) {
      return {
        kind: 'torn',
        ...at,
        message:
          `${where(line)} is torn: it does not end with a newline. A write was cut short (a crash or a full disk) or the file was truncated. ` +
          'The next Airlock run seals it with a recovery record; records that were being written are lost.',
      };
    }
    // A torn line sealed at start-up: the recovery record right after names its hash and chains
    // from the last complete line before it (even when the torn bytes happen to parse).
    const next = lines[i + 1]?.record;
    if (next?.type === 'recovery' && next.torn.sha256 === line.hash) {
      notes.push(`${where(line)} was torn by a crash and sealed by the recovery record after it.`);
      continue;
    }
    if (line.record === undefined) {
      return { kind: 'edited', ...at, message: `${where(line)} was edited or corrupted: ${line.problem}.` };
    }
    const record = line.record;
    if (expected !== undefined && record.prev !== expected) return classify(lines, i, firstIndexOf, lastGood, anchor, where);
    if (record.type === 'head-mismatch') return { kind: 'head-mismatch', ...at, message: mismatchMessage(record, where(line)) };
    if (expectedSeq !== undefined && record.seq !== expectedSeq) {
      return {
        kind: 'sequence',
        ...at,
        message:
          `${where(line)} has seq ${record.seq} where ${expectedSeq} was due, although its prev matches: ` +
          'records were removed or inserted and the chain recomputed, or the seq field was edited.',
      };
    }
    expected = line.hash;
    expectedSeq = record.seq + 1;
    lastGood = line;
  }
  return undefined;
}

/** Line i does not chain from what came before it: say which kind of damage explains that. */
function classify(lines: Line[], i: number, firstIndexOf: Map<string, number>, lastGood: Line | undefined, anchor: Anchor, where: (l: Line) => string): Break {
  const line = lines[i]!;
  const record = line.record!;
  const at = { file: line.file, line: line.line };
  const j = firstIndexOf.get(record.prev);
  if (j !== undefined && j > i) {
    return { kind: 'reordered', ...at, message: `${where(line)} chains from ${where(lines[j]!)}, which comes after it: lines were moved (reordered).` };
  }
  if (j !== undefined && j < i - 1) {
    const first = lines[j + 1]!;
    const last = lines[i - 1]!;
    const span = first === last ? where(first) : `${where(first)} to ${where(last)}`;
    return {
      kind: 'inserted',
      ...at,
      message: `${where(line)} chains from ${where(lines[j]!)}: ${span} ${first === last ? 'is' : 'are'} not part of the chain (inserted, even if ${first === last ? 'its' : 'their'} own prev looks right).`,
    };
  }
  const prevSeq = lastGood?.record?.seq ?? anchor.seq;
  if (lastGood === undefined && anchor.kind === 'genesis') {
    return {
      kind: record.seq > 0 ? 'deleted' : 'edited',
      ...at,
      message:
        record.seq > 0
          ? `${where(line)} is the first line but has seq ${record.seq} and does not chain from the start of the log: ${record.seq} earlier record(s) were removed.`
          : `${where(line)} does not chain from the start of the log (its prev was changed).`,
    };
  }
  if (prevSeq !== undefined && record.seq > prevSeq + 1) {
    const from = prevSeq + 1;
    const to = record.seq - 1;
    return {
      kind: 'deleted',
      ...at,
      message: `${to - from + 1} record(s) (seq ${from === to ? from : `${from}–${to}`}) are missing before ${where(line)}: deleted.`,
    };
  }
  if (prevSeq !== undefined && record.seq < prevSeq + 1) {
    return { kind: 'reordered', ...at, message: `${where(line)} has seq ${record.seq} after seq ${prevSeq} and does not chain from the line before it: lines were moved or replaced.` };
  }
  const before = lastGood === undefined ? 'the last line of the previous file' : where(lastGood);
  return {
    kind: 'edited',
    ...at,
    message: `${before} was changed after it was written: ${where(line)} holds the hash of a different line.`,
  };
}

function unreadable(path: string, error: unknown): VerifyResult {
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT') return { kind: 'unreadable', message: `No audit log at ${path}.`, fix: 'Check the path (`airlock audit verify` with no argument checks this project\'s log).' };
  return { kind: 'unreadable', message: `Cannot read ${path} (${code ?? String(error)}).`, fix: 'Check the permissions of the file and its folder.' };
}

import type { HeadRead } from './head.js';
import type { AuditRecord, HeadMismatchRecord } from './record.js';
import { listSet, rotatedPath } from './rotation.js';
import type { Break } from './verify.js';

/**
 * The second half of verify: a chain that is intact in itself, compared with its head (head.ts).
 * This is what shows a cut end, a deleted or replaced log, rotated files deleted by hand, and a
 * deleted head, none of which the chain alone can show.
 */

/** A line of the log as verify read it (verify.ts). */
export interface ChainLine {
  file: string;
  line: number;
  hash: string;
  record: AuditRecord | undefined;
}

/** The head a set is checked against, and what the check needs to know about the set. */
export interface HeadCheck {
  path: string;
  read: HeadRead;
  active: string;
  /** The oldest rotated file present (undefined: none, or not checking a whole set). */
  pruned: { oldest: number | undefined } | undefined;
}

const EVIDENCE =
  'Keep the files as they are (evidence) and find out what changed them; to start a new chain afterwards, move the log folder and its head file aside.';

/**
 * A head is kept per log path, so a log copied elsewhere (handed to an auditor, restored from a
 * backup) has none: its chain can still be checked, alone, and the message says how.
 */
const COPIED = 'If this file is a copy of a log (its head stays with the original), check its chain alone with `airlock audit verify --no-head <file>`.';

export function mismatchMessage(record: HeadMismatchRecord, where: string): string {
  const said = record.head === null ? 'there was no head (it was deleted, or the log predates heads)' : `the head said seq ${record.head.seq}`;
  const found = record.found === null ? 'the log held no records (deleted or emptied)' : `the log ended at seq ${record.found.seq ?? '(not a record)'}`;
  return `${where}: a run found that the log did not match its head (${record.headFile}): ${said}, but ${found}. Records were removed, or the log or its head replaced, before ${record.time}. ${EVIDENCE}`;
}

/** The chain is intact in itself: does it end where the head says, with no rotated file missing? */
export function checkHead(lines: readonly ChainLine[], head: HeadCheck, notes: string[], file: string): Break | undefined {
  const records = lines.filter((l) => l.record !== undefined);
  const last = records.at(-1);
  if (head.read.kind === 'unreadable') {
    return { kind: 'head-missing', file, message: `The head ${head.path} ${head.read.problem}, so the end of the log cannot be checked. It was damaged or replaced. ${COPIED} Otherwise: ${EVIDENCE}` };
  }
  if (head.read.kind === 'missing') {
    if (last === undefined) return undefined;
    return {
      kind: 'head-missing',
      file,
      message:
        `The log has ${records.length} record(s) but no head (${head.path}): the head was deleted, or this log was written before Airlock kept heads. ` +
        `Without it, records cut off the end or a replaced log cannot be told apart from an intact one. ${COPIED} Otherwise: ${EVIDENCE}`,
    };
  }
  const h = head.read.head;
  if (head.pruned !== undefined && head.pruned.oldest !== undefined && head.pruned.oldest > h.pruned + 1) {
    const { dir, stem } = listSet(head.active);
    const first = rotatedPath(dir, stem, h.pruned + 1);
    const lastMissing = rotatedPath(dir, stem, head.pruned.oldest - 1);
    return {
      kind: 'files-deleted',
      file: first,
      message:
        `${first === lastMissing ? first : `${first} to ${lastMissing}`} ${first === lastMissing ? 'is' : 'are'} missing, but rotation removed only ` +
        `${h.pruned === 0 ? 'none' : `files up to ${rotatedPath(dir, stem, h.pruned)}`} (head ${head.path}): they were deleted. ${EVIDENCE}`,
    };
  }
  if (last === undefined) {
    return {
      kind: 'truncated',
      file,
      message: `The log holds no records, but its head (${head.path}) says it ended at seq ${h.seq}: the log was deleted or emptied. ${EVIDENCE}`,
    };
  }
  const lastSeq = last.record!.seq;
  if (lastSeq === h.seq && last.hash === h.hash) return undefined;
  if (lastSeq === h.seq + 1 && last.record!.prev === h.hash) {
    notes.push(`The head names seq ${h.seq}, one record before the end: a run stopped between writing its last record and moving the head (the next record moves it).`);
    return undefined;
  }
  const namedAt = records.findIndex((l) => l.hash === h.hash && l.record!.seq === h.seq);
  const named = records[namedAt];
  const at = { file: last.file, line: last.line };
  // A run keeping the lock moves the head on its fsync interval, marked `writing`: the records
  // after the head's are that run's (it is still writing, or it was killed before moving the head).
  // The chain check above has already shown that they chain from the head's record.
  const writing = h.writing;
  if (named !== undefined && writing !== undefined && records.slice(namedAt + 1).every((l) => l.record!.session === writing.session)) {
    notes.push(
      `The head names seq ${h.seq}; the ${lastSeq - h.seq} record(s) after it are session ${writing.session}'s (process ${writing.pid} on ${writing.host}), ` +
        'which moves the head on its fsync interval and when it lets the lock go: it is still writing, or it stopped before moving the head (the next run moves it).',
    );
    return undefined;
  }
  if (named !== undefined) {
    return {
      kind: 'appended',
      ...at,
      message: `The head (${head.path}) names seq ${h.seq} at line ${named.line} of ${named.file}, but the log goes on to seq ${lastSeq}: records were appended by something that did not move the head. ${EVIDENCE}`,
    };
  }
  if (lastSeq < h.seq) {
    return {
      kind: 'truncated',
      ...at,
      message: `The log ends at seq ${lastSeq}, but the head (${head.path}) says seq ${h.seq}: ${h.seq - lastSeq} record(s) were cut off the end, or the log was replaced by an older or shorter one. ${EVIDENCE}`,
    };
  }
  return {
    kind: 'replaced',
    ...at,
    message: `The log ends at seq ${lastSeq}, but does not hold the record the head (${head.path}) names (seq ${h.seq}, ${h.hash.slice(0, 12)}…): the log was replaced by a different chain. ${EVIDENCE}`,
  };
}


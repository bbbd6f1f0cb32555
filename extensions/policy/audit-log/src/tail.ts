import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listSet, setsInFolder } from './rotation.js';
import type { AuditRecord } from './record.js';
import { displayText, displayValue } from '@airlock/toolkit/display';

/** The last records of a log, oldest first, read back through rotated files when the active one is short. */
export interface TailLine {
  file: string;
  text: string;
  record: AuditRecord | undefined;
}

export type TailResult = { kind: 'lines'; lines: TailLine[] } | { kind: 'unreadable'; message: string; fix: string };

export function tailAuditLog(target: string, count: number): TailResult {
  let files: string[];
  try {
    files = filesFor(target);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'ENOENT'
      ? { kind: 'unreadable', message: `No audit log at ${target}.`, fix: 'No tool call has been logged for this project yet, or the path is wrong.' }
      : { kind: 'unreadable', message: `Cannot read ${target} (${code ?? String(error)}).`, fix: 'Check the permissions of the file and its folder.' };
  }
  const out: TailLine[] = [];
  for (const file of [...files].reverse()) {
    for (const line of lastLines(file, count - out.length).reverse()) out.push({ file, text: line, record: parseRecord(line) });
    if (out.length >= count) break;
  }
  return { kind: 'lines', lines: out.reverse() };
}

/** Read backwards in blocks: the last lines of a 10 MB log cost what they hold, not the file. */
const BLOCK = 64 * 1024;

/** The last `count` lines of `file` (a final line without "\n" included), oldest first. */
function lastLines(file: string, count: number): string[] {
  if (count <= 0) return [];
  const fd = openSync(file, 'r');
  try {
    let end = fstatSync(fd).size;
    const chunks: Buffer[] = [];
    let newlines = 0;
    // One newline more than lines wanted, so the first kept line is whole (the last byte is usually "\n" itself).
    while (end > 0 && newlines <= count) {
      const size = Math.min(BLOCK, end);
      const chunk = Buffer.allocUnsafe(size);
      readSync(fd, chunk, 0, size, end - size);
      end -= size;
      chunks.unshift(chunk);
      for (const byte of chunk) if (byte === 0x0a) newlines++;
    }
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (end > 0) lines.shift(); // cut mid-line by the first block read
    return lines.slice(-count);
  } finally {
    closeSync(fd);
  }
}

/**
 * Print records as they are appended (`airlock audit tail -f`), until `signal` aborts. Follows
 * the active file across rotation: when the path names a new file, the rest of the old one is
 * read first, then the new one from its start. Polls (fs.watch misses renames on some systems).
 */
export async function followAuditLog(file: string, onLine: (line: TailLine) => void, signal: AbortSignal, intervalMs = 250): Promise<void> {
  let fd: number | undefined;
  let ino = 0;
  let position = 0;
  let partial = '';
  const open = (fromEnd: boolean) => {
    try {
      fd = openSync(file, 'r');
    } catch {
      fd = undefined; // not created yet, or between rotation steps: try again on the next poll
      return;
    }
    const stats = fstatSync(fd);
    ino = stats.ino;
    position = fromEnd ? stats.size : 0;
    partial = '';
  };
  const drain = () => {
    if (fd === undefined) return;
    const buffer = Buffer.allocUnsafe(BLOCK);
    for (;;) {
      const n = readSync(fd, buffer, 0, BLOCK, position);
      if (n === 0) break;
      position += n;
      const text = partial + buffer.subarray(0, n).toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line !== '') onLine({ file, text: line, record: parseRecord(line) });
    }
  };
  open(true);
  try {
    while (!signal.aborted) {
      await new Promise<void>((resume) => {
        const onAbort = () => {
          clearTimeout(timer);
          resume();
        };
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resume();
        }, intervalMs);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      drain();
      const now = statSync(file, { throwIfNoEntry: false });
      if (fd === undefined || (now !== undefined && now.ino !== ino)) {
        if (fd !== undefined) {
          closeSync(fd);
          // Several rotations may have happened since the last poll: the files rotated after the
          // one we were reading hold records too, oldest first.
          for (const rotated of rotatedAfter(file, ino)) {
            fd = openSync(rotated, 'r');
            position = 0;
            partial = ''; // a torn last line of the file before stays its own
            drain();
            closeSync(fd);
          }
        }
        open(false);
        drain();
      }
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Rotated files of `active`'s set newer than the one with inode `ino`, oldest first ([] when it is gone). */
function rotatedAfter(active: string, ino: number): string[] {
  const files = listSet(active).rotated.map((r) => r.path);
  const at = files.findIndex((path) => statSync(path, { throwIfNoEntry: false })?.ino === ino);
  return at === -1 ? [] : files.slice(at + 1);
}

/** The files of the set `target` names (a file: its set up to and including it; a folder: its first set). */
function filesFor(target: string): string[] {
  if (statSync(target).isDirectory()) {
    const set = setsInFolder(target).find((s) => s.rotated.length > 0 || existsSync(s.active));
    if (set === undefined) throw Object.assign(new Error('no audit log'), { code: 'ENOENT' });
    return [...set.rotated.map((r) => r.path), ...(existsSync(set.active) ? [set.active] : [])];
  }
  const set = listSet(target);
  if (join(set.dir, `${set.stem}.jsonl`) !== target && !set.rotated.some((r) => r.path === target)) return [target];
  const all = [...set.rotated.map((r) => r.path), set.active];
  return all.slice(0, all.indexOf(target) + 1).filter((f) => existsSync(f));
}

function parseRecord(line: string): AuditRecord | undefined {
  try {
    const value = JSON.parse(line) as AuditRecord;
    return typeof value === 'object' && value !== null && typeof value.type === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One record as one line for people: `#12 21:11:19.123 result read call_1 ok 3.1 ms 120 B sha256 1a2b3c4d`.
 * Tool names and call ids are the model's, reasons quote paths and commands, and the file itself
 * may have been edited: every field is shown through displayValue (escaped, counted, kept short),
 * so a record cannot rewrite the terminal or make one call look like another.
 */
export function formatRecord(record: AuditRecord | undefined, raw: string): string {
  if (record === undefined) return `(not a record) ${displayText(raw, { maxChars: 120 })}`;
  const head = `#${f(record.seq)} ${f(record.time)}`;
  switch (record.type) {
    case 'decision':
      return `${head} decision ${f(record.tool)} ${f(record.toolCallId)} ${f(record.decision)}${record.vote === 'ask' ? ' (asked)' : ''} · ${source(record.decision_source)}`;
    case 'result':
      return `${head} result   ${f(record.tool)} ${f(record.toolCallId)} ${f(record.outcome)} ${f(record.durationMs)} ms ${f(record.resultBytes)} B sha256 ${f(String(record.resultSha256).slice(0, 12))}`;
    case 'recovery':
      return `${head} recovery sealed a torn line of ${f(record.torn?.bytes)} bytes (a crash cut a write short)`;
    case 'head-mismatch':
      return `${head} HEAD MISMATCH the head said ${point(record.head, 'nothing (no head)')}, the log ended at ${point(record.found, 'nothing (no records)')}`;
    default:
      return `${head} ${f((record as { type: unknown }).type)}`;
  }
}

/** One field of a record, whatever the file holds there. */
function f(value: unknown, maxChars = 100): string {
  return displayValue(value, { maxChars });
}

function point(p: { seq: number | null; hash: string } | null, none: string): string {
  return p === null ? none : `seq ${f(p.seq ?? '?')} (${f(String(p.hash).slice(0, 12))})`;
}

function source(s: Extract<AuditRecord, { type: 'decision' }>['decision_source']): string {
  switch (s?.kind) {
    case 'rule':
      return `rule ${f(s.rule, 200)} (${f(s.handler)})`;
    case 'handler':
      return `handler ${f(s.handler)}`;
    case 'user':
      return `user${s.scope ? `, ${f(s.scope)}` : ''} (${f(s.handler)})`;
    case 'approver':
      return `${s.by ? f(s.by) : 'approver'}${s.scope ? `, ${f(s.scope)}` : ''} (${f(s.handler)})`;
    case 'handler-failure':
      return `failure of ${f(s.handler)} (${f(s.phase)})`;
    case 'kernel':
      return `kernel: ${f(s.reason, 300)}`;
    default:
      return f((s as { kind?: unknown } | undefined)?.kind);
  }
}

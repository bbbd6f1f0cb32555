import { readFileSync } from 'node:fs';
import { lineHash } from '@airlock/audit-format';
import type { Head } from './head.js';
import { listSet } from './rotation.js';

/**
 * Whether the records after the head's record are those of the run that marked the head
 * `writing` and stopped without moving it again (killed while holding the lock): the head's record
 * is in the log (the active file, or the newest rotated one), and every complete line after it is a
 * record of `session` that chains from the line before. Anything else (a record of another
 * session, a line that does not chain, the head's record missing) is not explained by that run.
 *
 * Read only when a run takes over such a log: it costs the size of the active file, once.
 */
export function followsHead(active: string, head: Head, session: string): boolean {
  const files = [listSet(active).rotated.at(-1)?.path, active].filter((f): f is string => f !== undefined);
  const lines: Buffer[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    let start = 0;
    for (let end = bytes.indexOf(0x0a); end !== -1; end = bytes.indexOf(0x0a, start)) {
      lines.push(bytes.subarray(start, end));
      start = end + 1;
    }
  }
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lineHash(lines[i]!) === head.hash && seqOf(lines[i]!)?.seq === head.seq) {
      at = i;
      break;
    }
  }
  if (at === -1) return false;
  for (let i = at + 1; i < lines.length; i++) {
    const record = seqOf(lines[i]!);
    if (record === undefined || record.session !== session || record.prev !== lineHash(lines[i - 1]!)) return false;
  }
  return true;
}

function seqOf(line: Buffer): { seq: unknown; session: unknown; prev: unknown } | undefined {
  try {
    return JSON.parse(line.toString('utf8')) as { seq: unknown; session: unknown; prev: unknown };
  } catch {
    return undefined;
  }
}

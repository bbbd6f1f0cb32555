import { buildPatch } from './diff.js';
import { checkDisjointAndChanging, duplicates, type EditInput } from './match.js';

/**
 * The common case, done on bytes: a file without '\r' where every oldText matches exactly. Then
 * exact space is the raw bytes (UTF-8 is self-synchronising, so a byte match is a character
 * match), the new file is written as slices of the old buffer around the replacements, and the
 * patch is built from a decoded window around the edits. Nothing is proportional to the file
 * except reading it, one native search per edit and counting line breaks up to the first edit.
 */
export interface FastPlan {
  chunks: Uint8Array[];
  count: number;
  diff: string;
  firstChangedLine: number | undefined;
}

const LF = 0x0a;
const CR = 0x0d;

/** Returns undefined when the slow path must decide (a '\r' in the file, or an oldText without an exact match). */
export function fastPlan(bytes: Buffer, bomLength: number, edits: readonly EditInput[], shown: string): FastPlan | undefined {
  if (bytes.indexOf(CR, bomLength) !== -1) return undefined;
  const body = bytes.subarray(bomLength);
  const located: { index: number; start: number; end: number; replacement: Buffer }[] = [];
  for (let i = 0; i < edits.length; i++) {
    const edit = edits[i]!;
    if (edit.oldText === '' || edit.oldText.includes('\r') || edit.newText.includes('\r')) return undefined;
    const needle = Buffer.from(edit.oldText, 'utf8');
    const first = body.indexOf(needle);
    if (first === -1) return undefined;
    let n = 1;
    for (let k = body.indexOf(needle, first + 1); k !== -1; k = body.indexOf(needle, k + 1)) n++;
    if (n > 1) throw duplicates(n, edits.length > 1 ? `edits[${i}]` : 'the text', shown, false);
    located.push({ index: i, start: first, end: first + needle.length, replacement: Buffer.from(edit.newText, 'utf8') });
  }
  located.sort((a, b) => a.start - b.start);
  checkDisjointAndChanging(located, (e) => body.subarray(e.start, e.end).equals(e.replacement), shown);
  return planOnBytes(bytes, bomLength, located, shown);
}

/** One edit located in the body (the bytes after the BOM): replace bytes [start, end). */
export interface ByteEdit {
  start: number;
  end: number;
  replacement: Buffer;
}

/**
 * The new content as slices of the old buffer around the replacements (nothing re-encoded),
 * and the patch from a decoded window around the edits. `located` is sorted and disjoint.
 */
export function planOnBytes(bytes: Buffer, bomLength: number, located: readonly ByteEdit[], shown: string): FastPlan {
  const body = bytes.subarray(bomLength);
  const chunks: Uint8Array[] = [];
  if (bomLength > 0) chunks.push(bytes.subarray(0, bomLength));
  let cursor = 0;
  for (const e of located) {
    chunks.push(body.subarray(cursor, e.start), e.replacement);
    cursor = e.end;
  }
  chunks.push(body.subarray(cursor));

  // The window the patch needs: 3 lines before the first edit's line, 4 line breaks after the last edit.
  const minStart = located[0]!.start;
  let from = minStart === 0 ? 0 : body.lastIndexOf(LF, minStart - 1) + 1;
  for (let k = 0; k < 3 && from > 0; k++) from = from < 2 ? 0 : body.lastIndexOf(LF, from - 2) + 1;
  let to = located[located.length - 1]!.end;
  for (let k = 0; k < 4; k++) {
    const next = body.indexOf(LF, to);
    if (next === -1) {
      to = body.length;
      break;
    }
    to = next + 1;
  }
  let firstLine = 1;
  for (let k = body.indexOf(LF); k !== -1 && k < from; k = body.indexOf(LF, k + 1)) firstLine++;
  const window = body.toString('utf8', from, to);
  const charOffset = (byte: number) => body.toString('utf8', from, byte).length;
  const edited = located.map((e) => ({ start: charOffset(e.start), end: charOffset(e.end), replacement: e.replacement.toString('utf8') }));
  const { diff, firstChangedLine } = buildPatch(window, edited, shown, firstLine);
  return { chunks, count: located.length, diff, firstChangedLine };
}

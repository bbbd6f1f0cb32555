import { normaliseLine, originalColumn } from './normalize.js';

/**
 * Where oldText occurs, line by line, without building a second copy of the file. A file's
 * lines are its text split at '\n', a '\r' before the '\n' belonging to the line break: so an
 * LF oldText matches a CRLF (or mixed) file, and a match's offsets are offsets in the file.
 * oldText is split the same way, and occurs where its first line ends a line, its middle lines
 * equal whole lines and its last line starts a line (one line: anywhere inside a line).
 *
 * Exact mode compares lines as they are. Fuzzy mode compares them after normaliseLine. Lines
 * are only looked at around candidates for where oldText's longest line (the anchor) sits:
 * - lines holding the anchor verbatim (one native indexOf pass);
 * - in fuzzy mode, also every line with a non-ASCII character: an ASCII line normalises to
 *   itself minus trailing whitespace, so it can only hold the anchor if it holds it verbatim;
 *   any other line might normalise to anything.
 * Normalising every line of a 10 MB file costs ~100 ms; this costs a few indexOf passes.
 */

export type LineMode = 'exact' | 'fuzzy';

export interface LineHits {
  /** Occurrences (overlapping ones count: they are just as ambiguous). */
  count: number;
  /** The first occurrence as a range of the text, covering only the characters it matched. */
  first: [number, number] | undefined;
}

const NOT_ASCII = /[^\x00-\x7f]/g;
const IDENTITY = (line: string) => line;

/** Occurrences of `wanted` (split into lines; not all empty in fuzzy mode) in `text`. */
export function findLines(text: string, wanted: readonly string[], mode: LineMode): LineHits {
  let anchor = 0;
  for (let i = 1; i < wanted.length; i++) if (wanted[i]!.length > wanted[anchor]!.length) anchor = i;
  const hits: LineHits = { count: 0, first: undefined };
  const normalise = mode === 'fuzzy' ? normaliseLine : IDENTITY;
  const verbatim = linesHolding(text, wanted[anchor]!);
  const candidates = mode === 'fuzzy' ? mergeSorted(verbatim, nonAsciiLines(text)) : verbatim;
  for (const start of candidates) {
    const first = lineBack(text, start, anchor);
    if (first !== -1) matchAt(text, first, wanted, normalise, hits);
  }
  return hits;
}

/** Starts of the lines holding `needle`, ascending, one per line. */
function linesHolding(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let k = text.indexOf(needle); k !== -1; ) {
    starts.push(lineStartOf(text, k));
    const next = text.indexOf('\n', k + needle.length);
    if (next === -1) break;
    k = text.indexOf(needle, next + 1);
  }
  return starts;
}

/** Starts of the lines with a non-ASCII character, ascending, one per line. */
function nonAsciiLines(text: string): number[] {
  const starts: number[] = [];
  NOT_ASCII.lastIndex = 0;
  for (let m = NOT_ASCII.exec(text); m !== null; m = NOT_ASCII.exec(text)) {
    starts.push(lineStartOf(text, m.index));
    const next = text.indexOf('\n', m.index);
    if (next === -1) break;
    NOT_ASCII.lastIndex = next + 1;
  }
  return starts;
}

function lineStartOf(text: string, offset: number): number {
  return offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
}

/** The start of the line `n` lines before the line starting at `start`, or -1 when there is none. */
function lineBack(text: string, start: number, n: number): number {
  let at = start;
  for (let i = 0; i < n; i++) {
    if (at === 0) return -1;
    at = lineStartOf(text, at - 1);
  }
  return at;
}

/**
 * Adds the occurrences of `wanted` whose first line is the line starting at `start`. One line:
 * every place it occurs in that (normalised) line. Several: the first must end the line, the
 * middle ones equal whole lines, the last start its line.
 */
function matchAt(text: string, start: number, wanted: readonly string[], normalise: (line: string) => string, hits: LineHits): void {
  const raws: string[] = [];
  const starts: number[] = [];
  let at = start;
  for (let i = 0; i < wanted.length; i++) {
    if (at > text.length) return;
    const end = text.indexOf('\n', at);
    let stop = end === -1 ? text.length : end;
    if (end !== -1 && stop > at && text.charCodeAt(stop - 1) === 13) stop--;
    raws.push(text.slice(at, stop));
    starts.push(at);
    at = end === -1 ? text.length + 1 : end + 1;
  }
  const norms = raws.map(normalise);
  const last = wanted.length - 1;
  if (last === 0) {
    const needle = wanted[0]!;
    const norm = norms[0]!;
    for (let k = norm.indexOf(needle); k !== -1; k = norm.indexOf(needle, k + 1)) {
      record(hits, start + toColumn(raws[0]!, norm, k, false), start + toColumn(raws[0]!, norm, k + needle.length, true));
    }
    return;
  }
  if (!norms[0]!.endsWith(wanted[0]!) || !norms[last]!.startsWith(wanted[last]!)) return;
  for (let i = 1; i < last; i++) if (norms[i] !== wanted[i]) return;
  const from = start + toColumn(raws[0]!, norms[0]!, norms[0]!.length - wanted[0]!.length, false);
  // An empty last line ends the match at the start of its line (after the line break).
  const to = wanted[last] === '' ? starts[last]! : starts[last]! + toColumn(raws[last]!, norms[last]!, wanted[last]!.length, true);
  record(hits, from, to);
}

/**
 * The raw column of normalised column `column`. At the end of the normalised line it is the
 * end of the raw line, so a match that reaches the end takes the trailing whitespace with it.
 */
function toColumn(raw: string, norm: string, column: number, roundUp: boolean): number {
  if (raw === norm) return column;
  return column >= norm.length ? raw.length : originalColumn(raw, column, roundUp);
}

function record(hits: LineHits, from: number, to: number): void {
  hits.count++;
  hits.first ??= [from, to];
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (out.length === 0 || out[out.length - 1] !== next) out.push(next);
  }
  return out;
}

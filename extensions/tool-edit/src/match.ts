import { normalisationsUsed, normaliseLine, originalColumn, type Normalisation } from './normalize.js';

export interface EditInput {
  oldText: string;
  newText: string;
}

/** One edit, located in the original text (BOM stripped): replace [start, end) with `replacement`. */
export interface Located {
  index: number;
  start: number;
  end: number;
  replacement: string;
  /** Set when the edit matched only in fuzzy space. */
  normalisations?: Normalisation[];
}

/** An error worded for the model; the file was not changed. */
export class EditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EditError';
  }
}

/**
 * The text with every CRLF seen as LF, so an LF oldText matches a CRLF (or mixed) file. `crs`
 * holds the view positions of the '\n's that were '\r\n' in the original, to map offsets back.
 */
interface LfView {
  text: string;
  crs: number[] | undefined;
}

function lfView(text: string): LfView {
  let i = text.indexOf('\r\n');
  if (i === -1) return { text, crs: undefined };
  const parts: string[] = [];
  const crs: number[] = [];
  let last = 0;
  while (i !== -1) {
    parts.push(text.slice(last, i));
    crs.push(i - crs.length);
    last = i + 1;
    i = text.indexOf('\r\n', i + 2);
  }
  parts.push(text.slice(last));
  return { text: parts.join(''), crs };
}

/** A view offset as an offset in the original; a '\r' always travels with its '\n'. */
function toOriginal(view: LfView, offset: number): number {
  const crs = view.crs;
  if (!crs) return offset;
  let lo = 0;
  let hi = crs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (crs[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return offset + lo;
}

/** The view's lines, normalised, joined: the space fuzzy matching searches. Built only when needed. */
interface FuzzyIndex {
  lines: string[];
  starts: number[];
  normLines: string[];
  normStarts: number[];
  text: string;
}

function fuzzyIndex(view: string): FuzzyIndex {
  const lines = view.split('\n');
  const starts = new Array<number>(lines.length);
  const normLines = new Array<string>(lines.length);
  const normStarts = new Array<number>(lines.length);
  let at = 0;
  let normAt = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const norm = normaliseLine(line);
    starts[i] = at;
    normStarts[i] = normAt;
    normLines[i] = norm;
    at += line.length + 1;
    normAt += norm.length + 1;
  }
  return { lines, starts, normLines, normStarts, text: normLines.join('\n') };
}

function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A match [from, to) in fuzzy space as a range of the LF view, covering only the original characters it matched. */
function fuzzyToView(index: FuzzyIndex, from: number, to: number): [number, number] {
  const sl = lineAt(index.normStarts, from);
  const startCol = from - index.normStarts[sl]!;
  const startLine = index.lines[sl]!;
  const start =
    index.starts[sl]! + (startCol >= index.normLines[sl]!.length ? startLine.length : originalColumn(startLine, startCol, false));
  const el = lineAt(index.normStarts, to);
  let end: number;
  if (to === index.normStarts[el] && to > 0) end = index.starts[el]!;
  else {
    const endCol = to - index.normStarts[el]!;
    const endLine = index.lines[el]!;
    end = index.starts[el]! + (endCol >= index.normLines[el]!.length ? endLine.length : originalColumn(endLine, endCol, true));
  }
  return [start, end];
}

/** Offsets of `needle` in `hay` (overlapping occurrences count: they are just as ambiguous). */
function occurrences(hay: string, needle: string): number[] {
  const found: number[] = [];
  let i = hay.indexOf(needle);
  while (i !== -1) {
    found.push(i);
    i = hay.indexOf(needle, i + 1);
  }
  return found;
}

const toLf = (s: string) => (s.includes('\r\n') ? s.replaceAll('\r\n', '\n') : s);

/**
 * Locate every edit in the original text, all-or-nothing: every oldText must match exactly once
 * (in exact space when it matches exactly at all, else in fuzzy space), and no two may overlap.
 * Throws an EditError naming the edit otherwise.
 */
export function locateEdits(text: string, edits: readonly EditInput[], shown: string): Located[] {
  const multi = edits.length > 1;
  const label = (i: number) => (multi ? `edits[${i}]` : 'the text');
  let view: LfView | undefined;
  let fuzzy: FuzzyIndex | undefined;
  const located: Located[] = [];

  edits.forEach((edit, i) => {
    if (edit.oldText === '') {
      throw new EditError(`${multi ? `edits[${i}].oldText` : 'oldText'} is empty. Give the exact text to replace, with enough surrounding lines to be unique.`);
    }
    const oldText = toLf(edit.oldText);
    const newText = toLf(edit.newText);
    view ??= lfView(text);
    let range: [number, number];
    let normalisations: Normalisation[] | undefined;
    const exact = occurrences(view.text, oldText);
    if (exact.length > 1) throw duplicates(exact.length, label(i), shown, false);
    if (exact.length === 1) range = [exact[0]!, exact[0]! + oldText.length];
    else {
      fuzzy ??= fuzzyIndex(view.text);
      const wanted = oldText.split('\n').map(normaliseLine).join('\n');
      const found = wanted.trim() === '' ? [] : occurrences(fuzzy.text, wanted);
      if (found.length > 1) throw duplicates(found.length, label(i), shown, true);
      if (found.length === 0) throw notFound(fuzzy, oldText, label(i), shown);
      range = fuzzyToView(fuzzy, found[0]!, found[0]! + wanted.length);
      normalisations = normalisationsUsed(view.text.slice(range[0], range[1]), oldText);
    }
    const start = toOriginal(view, range[0]);
    const end = toOriginal(view, range[1]);
    const eol = lineEndingAt(text, start);
    const item: Located = { index: i, start, end, replacement: eol === '\n' ? newText : newText.replaceAll('\n', eol) };
    if (normalisations) item.normalisations = normalisations;
    located.push(item);
  });

  const sorted = [...located].sort((a, b) => a.start - b.start);
  checkDisjointAndChanging(sorted, (e) => text.slice(e.start, e.end) === e.replacement, shown);
  return sorted;
}

/** Sorted located edits must not overlap, and at least one must change something. */
export function checkDisjointAndChanging<T extends { index: number; start: number; end: number }>(
  sorted: readonly T[],
  unchanged: (e: T) => boolean,
  shown: string,
): void {
  for (let k = 1; k < sorted.length; k++) {
    const prev = sorted[k - 1]!;
    const next = sorted[k]!;
    if (next.start < prev.end) {
      const [i, j] = [prev.index, next.index].sort((a, b) => a - b);
      throw new EditError(`edits[${i}] and edits[${j}] overlap in ${shown}. Merge them into one edit or target disjoint regions.`);
    }
  }
  if (sorted.every(unchanged)) {
    throw new EditError(
      `No changes made to ${shown}: the replacement produced identical content. Check that newText differs from oldText.`,
    );
  }
}

/** The line ending of the region at `offset`: that of the first line break at or after it, else before it, else LF. */
function lineEndingAt(text: string, offset: number): '\n' | '\r\n' {
  let k = text.indexOf('\n', offset);
  if (k === -1 && offset > 0) k = text.lastIndexOf('\n', offset - 1);
  return k > 0 && text[k - 1] === '\r' ? '\r\n' : '\n';
}

export function duplicates(n: number, label: string, shown: string, fuzzy: boolean): EditError {
  const space = fuzzy ? ' (after normalising whitespace, quotes, dashes and Unicode forms; there is no exact match)' : '';
  return new EditError(
    `Found ${n} occurrences of ${label} in ${shown}${space}. Each oldText must match exactly once: add more surrounding lines to make it unique.`,
  );
}

const MAX_CANDIDATE_LINES = 20;

function notFound(index: FuzzyIndex, oldText: string, label: string, shown: string): EditError {
  let message =
    `Could not find ${label} in ${shown}, even ignoring trailing whitespace and Unicode quote, dash, space and ` +
    'compatibility-form differences. The oldText must match the file exactly, including indentation and line breaks.';
  const best = closestWindow(index, oldText);
  if (best) {
    const shownLines = index.lines.slice(best.start, best.start + Math.min(best.length, MAX_CANDIDATE_LINES));
    const width = String(best.start + shownLines.length).length;
    const body = shownLines.map((line, k) => `${String(best.start + k + 1).padStart(width)}| ${line}`).join('\n');
    const last = best.start + shownLines.length;
    message += `\nThe closest match is lines ${best.start + 1}-${last}:\n${body}`;
    if (best.length > shownLines.length) message += `\n… (${best.length - shownLines.length} more lines)`;
    message += `\nThe file may have changed: read it again (offset=${best.start + 1}) and copy oldText exactly from it.`;
  } else {
    message += '\nNothing in the file resembles it: read the file again before retrying.';
  }
  return new EditError(message);
}

const TOKEN = /[\p{L}\p{N}_]+/gu;

/**
 * The window of lines (as many as oldText has) most like oldText: a line scores 1 when it equals an
 * oldText line up to whitespace, else the share of its words that occur in oldText.
 */
function closestWindow(index: FuzzyIndex, oldText: string): { start: number; length: number } | undefined {
  const oldLines = oldText.split('\n');
  if (oldLines.length > 1 && oldLines[oldLines.length - 1] === '') oldLines.pop();
  const m = Math.max(1, Math.min(oldLines.length, index.lines.length));
  const key = (s: string) => s.replace(/\s+/g, ' ').trim();
  const keys = new Set(oldLines.map((l) => key(normaliseLine(l))).filter((k) => k !== ''));
  const words = new Set<string>();
  for (const l of oldLines) for (const w of normaliseLine(l).toLowerCase().match(TOKEN) ?? []) words.add(w);
  const scores = index.normLines.map((line) => {
    const k = key(line);
    if (k === '') return 0;
    if (keys.has(k)) return 1;
    const tokens = line.toLowerCase().match(TOKEN);
    if (!tokens) return 0;
    let hit = 0;
    for (const t of tokens) if (words.has(t)) hit++;
    return (0.9 * hit) / tokens.length;
  });
  let sum = 0;
  for (let k = 0; k < m; k++) sum += scores[k]!;
  let best = sum;
  let bestStart = 0;
  for (let s = 1; s + m <= scores.length; s++) {
    sum += scores[s + m - 1]! - scores[s - 1]!;
    if (sum > best + 1e-9) {
      best = sum;
      bestStart = s;
    }
  }
  return best > 0 ? { start: bestStart, length: m } : undefined;
}

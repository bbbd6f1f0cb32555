import { findLines } from './line-find.js';
import { normalisationsUsed, normaliseLine, type Normalisation } from './normalize.js';

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

/** Every line of the file, raw and normalised: built only to explain a failed match. */
interface FuzzyIndex {
  lines: string[];
  normLines: string[];
}

function fuzzyIndex(text: string): FuzzyIndex {
  const lines = text.split(/\r?\n/);
  return { lines, normLines: lines.map(normaliseLine) };
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
  const located: Located[] = [];

  edits.forEach((edit, i) => {
    if (edit.oldText === '') {
      throw new EditError(`${multi ? `edits[${i}].oldText` : 'oldText'} is empty. Give the exact text to replace, with enough surrounding lines to be unique.`);
    }
    const oldText = toLf(edit.oldText);
    const newText = toLf(edit.newText);
    const oldLines = oldText.split('\n');
    let range: [number, number];
    let normalisations: Normalisation[] | undefined;
    const exact = findLines(text, oldLines, 'exact');
    if (exact.count > 1) throw duplicates(exact.count, label(i), shown, false);
    if (exact.first) range = exact.first;
    else {
      const wanted = oldLines.map(normaliseLine);
      const found = wanted.join('\n').trim() === '' ? { count: 0, first: undefined } : findLines(text, wanted, 'fuzzy');
      if (found.count > 1) throw duplicates(found.count, label(i), shown, true);
      if (!found.first) throw notFound(fuzzyIndex(text), oldText, label(i), shown);
      range = found.first;
      normalisations = normalisationsUsed(toLf(text.slice(range[0], range[1])), oldText);
    }
    const [start, end] = range;
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

/**
 * The fuzzy fallback's normalisations. Each is a named level, so a result can say which ones a
 * match needed. Lines are normalised one grapheme-ish segment (a base character and its combining
 * marks) at a time, which keeps an exact map from a normalised column back to the original
 * column: a fuzzy match changes only the original characters it covers, never the rest.
 */
export type Normalisation = 'trailing-whitespace' | 'quotes' | 'dashes' | 'spaces' | 'nfkc';

export const NORMALISATIONS: readonly Normalisation[] = ['trailing-whitespace', 'quotes', 'dashes', 'spaces', 'nfkc'];

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032\u2035]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033\u2036]/g;
const DASHES = /[\u2010-\u2015\u2212]/g;
const SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;
const PLAIN_ASCII = /^[\x20-\x7e\t]*$/;
const SEGMENT = /\P{M}\p{M}*|\p{M}+/gu;

function transform(s: string, kind: Normalisation): string {
  switch (kind) {
    case 'nfkc':
      return s.normalize('NFKC');
    case 'quotes':
      return s.replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"');
    case 'dashes':
      return s.replace(DASHES, '-');
    case 'spaces':
      return s.replace(SPACES, ' ');
    case 'trailing-whitespace':
      return s
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n');
  }
}

/** Every normalisation but `skip`, applied to a (multi-line) text. */
export function normaliseExcept(s: string, skip?: Normalisation): string {
  let out = s;
  for (const kind of ['nfkc', 'quotes', 'dashes', 'spaces', 'trailing-whitespace'] as const) if (kind !== skip) out = transform(out, kind);
  return out;
}

function normaliseSegment(segment: string): string {
  return segment.normalize('NFKC').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(DASHES, '-').replace(SPACES, ' ');
}

/** One line (no '\n') in fuzzy space. */
export function normaliseLine(line: string): string {
  if (PLAIN_ASCII.test(line)) return line.trimEnd();
  let out = '';
  for (const segment of line.match(SEGMENT) ?? []) out += normaliseSegment(segment);
  return out.trimEnd();
}

/**
 * The original column of normalised column `column` of `line`. A column inside the expansion of
 * one original segment (e.g. inside the "fi" of "ﬁ") rounds down for a start, up for an end.
 */
export function originalColumn(line: string, column: number, roundUp: boolean): number {
  if (PLAIN_ASCII.test(line)) return Math.min(column, line.length);
  let normalised = 0;
  let original = 0;
  for (const segment of line.match(SEGMENT) ?? []) {
    const width = normaliseSegment(segment).length;
    if (column === normalised) return original;
    if (column < normalised + width) return roundUp ? original + segment.length : original;
    normalised += width;
    original += segment.length;
  }
  return original;
}

/** Which normalisations a fuzzy match of `oldText` against `region` relied on. */
export function normalisationsUsed(region: string, oldText: string): Normalisation[] {
  const needed = NORMALISATIONS.filter((kind) => normaliseExcept(region, kind) !== normaliseExcept(oldText, kind));
  if (needed.length > 0) return needed;
  return NORMALISATIONS.filter((kind) => transform(region, kind) !== region || transform(oldText, kind) !== oldText);
}

import type { Span } from './span.js';

/**
 * Text cut into lines of one width (`fold -w 20 .env`, `cut -c`, a terminal's hard wrap): a
 * token cut across lines is no token to a line-by-line look. Runs of at least two lines of the
 * same width W (the last may be shorter) are joined and scanned again; a finding that crosses a
 * line boundary is mapped back onto the lines it spans. It only fills gaps: where it overlaps a
 * finding of the plain scan, the plain one wins (two log lines of equal length joined make
 * tokens longer, not new ones). This costs one `indexOf` per line; a text made only of such
 * runs (a hex dump) is scanned twice.
 */
export const MIN_FOLD_WIDTH = 12;

export interface FoldedFinding extends Span {
  ruleId: string;
}

interface Line {
  start: number;
  end: number;
}

function crossing(group: readonly Line[], width: number, inner: (joined: string) => readonly FoldedFinding[], text: string, out: FoldedFinding[]): void {
  // Two full lines at least: a line followed by a shorter one is every other paragraph.
  if (group.length < 2 || group[1]!.end - group[1]!.start !== width) return;
  const joined = group.map((l) => text.slice(l.start, l.end)).join('');
  const at = (offset: number): number => group[Math.floor(offset / width)]!.start + (offset % width);
  for (const f of inner(joined)) {
    if (Math.floor(f.start / width) === Math.floor((f.end - 1) / width)) continue;
    out.push({ ruleId: f.ruleId, start: at(f.start), end: at(f.end - 1) + 1 });
  }
}

/**
 * Secrets cut across the lines of fixed-width text, as `inner` finds them in the joined lines.
 *
 * @example
 * foldedSecrets('GITHUB_TOKEN=ghp_Zq9x\n7LmN3pR…\n', (t) => scanner.scan(t)) // [{ ruleId: 'github-token', start: 13, end: … }]
 */
export function foldedSecrets(text: string, inner: (joined: string) => readonly FoldedFinding[]): FoldedFinding[] {
  const out: FoldedFinding[] = [];
  let group: Line[] = [];
  let width = 0;
  for (let start = 0; start < text.length; ) {
    let next = text.indexOf('\n', start);
    if (next === -1) next = text.length;
    const end = next > start && text.charCodeAt(next - 1) === 13 ? next - 1 : next;
    const length = end - start;
    if (group.length > 0 && length > 0 && length <= width) {
      group.push({ start, end });
      if (length < width) {
        crossing(group, width, inner, text, out);
        group = [];
      }
    } else {
      crossing(group, width, inner, text, out);
      group = length >= MIN_FOLD_WIDTH ? [{ start, end }] : [];
      width = length;
    }
    start = next + 1;
  }
  crossing(group, width, inner, text, out);
  return out;
}

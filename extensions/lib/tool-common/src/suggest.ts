import { readdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { closestNames } from '@airlock/kernel/util';
import { visibleName } from './paths.js';

/** A suggestion is a courtesy, not a search: huge folders are compared on their first names only. */
const MAX_COMPARED = 20_000;

/**
 * " Did you mean: a, b?" for a path that does not exist, from the names in its folder; "" when
 * nothing is close or the folder cannot be read.
 *
 * @example await suggestNear('/repo/READM.md') // " Did you mean: README.md?"
 */
export async function suggestNear(absolute: string): Promise<string> {
  const parent = dirname(absolute);
  if (parent === absolute) return '';
  try {
    const names = await readdir(parent);
    const close = closestNames(basename(absolute), names.length > MAX_COMPARED ? names.slice(0, MAX_COMPARED) : names);
    // Invisible characters escaped: a name that differs only in them must look different.
    return close.length > 0 ? ` Did you mean: ${close.map(visibleName).join(', ')}?` : '';
  } catch {
    return '';
  }
}

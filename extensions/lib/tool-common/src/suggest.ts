import { opendir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { closestNames } from '@airlock/toolkit/util';
import { visibleName } from './paths.js';

/** A suggestion is a courtesy, not a search: huge folders are compared on their first names only. */
const MAX_COMPARED = 20_000;

/**
 * The names in the folder of a path that does not exist that are close to its own name (the
 * kernel's closestNames), best first; undefined when the folder cannot be read.
 *
 * @example await namesNear('/repo/READM.md') // ['README.md']
 */
export async function namesNear(absolute: string, max = 3): Promise<string[] | undefined> {
  const parent = dirname(absolute);
  if (parent === absolute) return [];
  const names: string[] = [];
  try {
    for await (const entry of await opendir(parent)) {
      names.push(entry.name);
      if (names.length >= MAX_COMPARED) break;
    }
  } catch {
    return undefined;
  }
  return closestNames(basename(absolute), names, max);
}

/**
 * " Did you mean: a, b?" for a path that does not exist, from the names in its folder; "" when
 * nothing is close or the folder cannot be read.
 *
 * @example await suggestNear('/repo/READM.md') // " Did you mean: README.md?"
 */
export async function suggestNear(absolute: string): Promise<string> {
  const close = (await namesNear(absolute)) ?? [];
  // Invisible characters escaped: a name that differs only in them must look different.
  return close.length > 0 ? ` Did you mean: ${close.map(visibleName).join(', ')}?` : '';
}

import { readdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { visibleName } from './paths.js';

/**
 * Names in a folder close to one that was not found: same name ignoring case, Unicode form or
 * separators, a shared prefix, or a small edit distance. Best first, at most `max`.
 *
 * @example closeNames('READM.md', ['README.md', 'src']) // ['README.md']
 */
export function closeNames(wanted: string, names: readonly string[], max = 3): string[] {
  const key = fold(wanted);
  const scored: { name: string; score: number }[] = [];
  // Bound the work on huge folders: a suggestion is a courtesy, not a search.
  for (const name of names.length > 20_000 ? names.slice(0, 20_000) : names) {
    const other = fold(name);
    let score: number;
    if (other === key) score = 0;
    else if (key.length >= 3 && (other.startsWith(key) || key.startsWith(other))) score = 1;
    else {
      const budget = Math.max(2, Math.floor(key.length / 3));
      const d = distance(key, other, budget);
      if (d > budget) continue;
      score = 1 + d;
    }
    scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}

function fold(name: string): string {
  return name.normalize('NFC').toLowerCase().replace(/[\s_-]+/g, '');
}

/** Levenshtein distance, giving up (returning budget + 1) once it must exceed `budget`. */
function distance(a: string, b: string, budget: number): number {
  if (Math.abs(a.length - b.length) > budget) return budget + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      if (value < best) best = value;
    }
    if (best > budget) return budget + 1;
    previous = current;
  }
  return previous[b.length] as number;
}

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
    const close = closeNames(basename(absolute), await readdir(parent));
    // Invisible characters escaped: a name that differs only in them must look different.
    return close.length > 0 ? ` Did you mean: ${close.map(visibleName).join(', ')}?` : '';
  } catch {
    return '';
  }
}

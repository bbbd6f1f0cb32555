import { opendir } from 'node:fs/promises';

/** At most this many entries are compared: a folder of a million files must not stall an edit. */
const MAX_ENTRIES = 10_000;

/** Names in `dir` close to `wanted` (same name ignoring case, or a small edit distance), best first. */
export async function closeNamesIn(dir: string, wanted: string, max = 3): Promise<string[] | undefined> {
  const names: string[] = [];
  try {
    const handle = await opendir(dir);
    for await (const entry of handle) {
      names.push(entry.name);
      if (names.length >= MAX_ENTRIES) break;
    }
  } catch {
    return undefined;
  }
  const w = wanted.toLowerCase();
  const threshold = Math.max(1, Math.floor(w.length / 3));
  const scored: { name: string; d: number }[] = [];
  for (const name of names) {
    const n = name.toLowerCase();
    if (Math.abs(n.length - w.length) > threshold) continue;
    const d = editDistance(w, n);
    if (d <= threshold) scored.push({ name, d });
  }
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** Levenshtein distance with adjacent swaps (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const width = b.length + 1;
  let prev2 = new Array<number>(width).fill(0);
  let prev = Array.from({ length: width }, (_, j) => j);
  let row = new Array<number>(width).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, prev2[j - 2]! + 1);
      row[j] = best;
    }
    [prev2, prev, row] = [prev, row, prev2];
  }
  return prev[b.length]!;
}

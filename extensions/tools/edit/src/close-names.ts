import { opendir } from 'node:fs/promises';
import { closestNames } from '@airlock/kernel/util';

/** At most this many entries are compared: a folder of a million files must not stall an edit. */
const MAX_ENTRIES = 10_000;

/** Names in `dir` close to `wanted` (the kernel's closestNames), best first; undefined if unreadable. */
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
  return closestNames(wanted, names, max);
}

import { opendir } from 'node:fs/promises';
import { closeNames } from '@airlock/tool-common';

/** At most this many entries are compared: a folder of a million files must not stall an edit. */
const MAX_ENTRIES = 10_000;

/** Names in `dir` close to `wanted` (tool-common's closeNames), best first; undefined if unreadable. */
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
  return closeNames(wanted, names, max);
}

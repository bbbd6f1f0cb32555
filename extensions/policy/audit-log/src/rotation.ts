import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * File names of a rotated set. The active file is `<stem>.jsonl`; a full one is renamed to
 * `<stem>.<n>.jsonl` with n counting up from 1 and never reused. Numbers that only grow mean no
 * renaming cascade on each rotation, and a gap, or a set whose oldest file is not number 1,
 * says files were removed (by maxFiles, or by hand).
 */

export interface LogSet {
  dir: string;
  stem: string;
  /** Rotated files, oldest first. */
  rotated: { n: number; path: string }[];
  /** The active file (it may not exist). */
  active: string;
}

/** `/x/audit.jsonl` → { dir: '/x', stem: 'audit' }. */
export function splitActivePath(active: string): { dir: string; stem: string } {
  const name = basename(active);
  return { dir: dirname(active), stem: name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name };
}

export function rotatedPath(dir: string, stem: string, n: number): string {
  return join(dir, `${stem}.${n}.jsonl`);
}

/** What a file name says about its place in a set: the active file (n undefined) or rotated number n. */
export function parseLogName(name: string): { stem: string; n: number | undefined } | undefined {
  const rotated = /^(.+)\.(\d+)\.jsonl$/.exec(name);
  if (rotated) return { stem: rotated[1]!, n: Number(rotated[2]) };
  const active = /^(.+)\.jsonl$/.exec(name);
  return active ? { stem: active[1]!, n: undefined } : undefined;
}

/** The set the active file `active` heads, from the names in its folder. */
export function listSet(active: string): LogSet {
  const { dir, stem } = splitActivePath(active);
  const rotated: LogSet['rotated'] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // No folder yet: an empty set.
  }
  for (const name of names) {
    const parsed = parseLogName(name);
    if (parsed?.stem === stem && parsed.n !== undefined) rotated.push({ n: parsed.n, path: join(dir, name) });
  }
  rotated.sort((a, b) => a.n - b.n);
  return { dir, stem, rotated, active: join(dir, `${stem}.jsonl`) };
}

/** Every set in a folder, by stem (usually one: `audit`). */
export function setsInFolder(dir: string): LogSet[] {
  const stems = new Set<string>();
  for (const name of readdirSync(dir)) {
    const parsed = parseLogName(name);
    if (parsed) stems.add(parsed.stem);
  }
  return [...stems].sort().map((stem) => listSet(join(dir, `${stem}.jsonl`)));
}

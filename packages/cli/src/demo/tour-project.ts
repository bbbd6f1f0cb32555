import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { displayText } from '@airlock/toolkit/display';
import { errorMessage } from '@airlock/toolkit/util';
import { UsageError } from '../io.js';

/** What `examples/tour/` holds: the script, the user's prompt, the project the run works in. */
export interface TourFiles {
  dir: string;
  script: string;
  prompt: string;
  project: string;
}

/**
 * `examples/tour/` of the Airlock checkout this CLI runs from: the first folder above this module
 * that has it. The same search works from the sources (vitest), `tsc -b`'s `dist/` and the bundle,
 * which sit at different depths.
 */
export function findTour(from: string = fileURLToPath(import.meta.url)): TourFiles {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const tour = join(dir, 'examples', 'tour');
    if (existsSync(join(tour, 'tour.jsonl'))) return { dir: tour, script: join(tour, 'tour.jsonl'), prompt: join(tour, 'prompt.txt'), project: join(tour, 'project') };
    if (dirname(dir) === dir) break;
  }
  throw new UsageError(
    'The tour (examples/tour/tour.jsonl) is not next to this airlock: --demo runs from an Airlock checkout.',
    'Run it from a clone: pnpm build, then bin/airlock run --demo.',
  );
}

/**
 * The sandbox project: a copy of the tour's project in `dir` (made when missing; it must be
 * empty: the tour writes into it), or in a new temp folder, with a minimal `.git` so it is a
 * repository of its own (transcripts and the audit log are keyed by it, and git hooks exist).
 * Returns its absolute path. The folder is left for the person to look at afterwards.
 */
export function makeTourProject(tour: TourFiles, dir: string | undefined, cwd: string): string {
  const target = dir === undefined ? undefined : resolve(cwd, dir);
  if (target !== undefined && existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new UsageError(`--demo-dir ${displayText(target, { maxChars: 300 })} is not an empty folder: the tour writes into the folder it is given.`, 'Give a new or empty folder, or leave --demo-dir out for a fresh temp folder.');
  }
  let made: string | undefined;
  try {
    made = target ?? mkdtempSync(join(tmpdir(), 'airlock-tour-'));
    mkdirSync(made, { recursive: true });
    cpSync(tour.project, made, { recursive: true });
    // Enough for git to see a repository (HEAD, objects, refs); nothing is committed.
    for (const sub of ['objects', 'refs/heads', 'refs/tags', 'hooks']) mkdirSync(join(made, '.git', sub), { recursive: true });
    writeFileSync(join(made, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(made, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n');
    return made;
  } catch (error) {
    throw new UsageError(
      `The tour's project cannot be made in ${made ?? target ?? tmpdir()}: ${errorMessage(error)}.`,
      target === undefined ? 'Set TMPDIR to a folder you can write to, or give one with --demo-dir DIR.' : 'Give --demo-dir a folder you can write to.',
    );
  }
}

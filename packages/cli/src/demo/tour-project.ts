import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  const target = dir === undefined ? mkdtempSync(join(tmpdir(), 'airlock-tour-')) : resolve(cwd, dir);
  if (dir !== undefined) {
    if (existsSync(target) && readdirSync(target).length > 0) {
      throw new UsageError(`--demo-dir ${target} is not empty: the tour writes into the folder it is given.`, 'Give a new or empty folder, or leave --demo-dir out for a fresh temp folder.');
    }
    mkdirSync(target, { recursive: true });
  }
  cpSync(tour.project, target, { recursive: true });
  // Enough for git to see a repository (HEAD, objects, refs); nothing is committed.
  for (const sub of ['objects', 'refs/heads', 'refs/tags', 'hooks']) mkdirSync(join(target, '.git', sub), { recursive: true });
  writeFileSync(join(target, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(target, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n');
  return target;
}

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_TREE_BOUNDS, pacer, UNSANDBOXED, type FileGate, type ProgramLauncher } from '@airlock/tool-common';

/**
 * Keeping rg away from files the read rules refuse. Filtering rg's output afterwards would hide
 * their lines from the model, but rg would still have opened and read them (a secret in another
 * process's memory, its size and timing observable). So before searching, rg lists the files its
 * walk would search (`--files`, same flags, so the same walk), each is judged, and every refused
 * one becomes an anchored `--glob !/<path>` override: overrides outrank every ignore file, so a
 * `.gitignore` with `!.env` cannot bring it back. The search then filters its output through the
 * same gate as a second line (a file created between the two runs, a name no glob can spell).
 */

/**
 * Globs that exclude each file `gate` refuses in the tree rg would search from `root`.
 * `walkArgs` are the walk-shaping flags of the search (hidden, ignore handling, the user's glob).
 */
export async function refusedGlobs(rg: string, root: string, walkArgs: readonly string[], gate: FileGate, signal?: AbortSignal, launch: ProgramLauncher = UNSANDBOXED): Promise<string[]> {
  const files = await listFiles(launch, rg, root, walkArgs, signal);
  const globs: string[] = [];
  // Judging is synchronous and a tree can hold a million files: the event loop gets its turns.
  const pause = pacer(signal);
  for (const rel of files) {
    const paused = pause();
    if (paused) await paused;
    if (!gate.admit(rel, join(root, rel))) globs.push(`!/${escapeGlob(rel)}`);
  }
  return globs;
}

/** A literal path as an rg (gitignore-syntax) glob: every glob metacharacter and space escaped. */
export function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}! #]/g, (c) => `\\${c}`);
}

async function listFiles(launch: ProgramLauncher, rg: string, root: string, walkArgs: readonly string[], signal?: AbortSignal): Promise<string[]> {
  // NUL-separated: a file name may hold a newline.
  const line = await launch(rg, ['--files', '--null', ...walkArgs], { cwd: root, ...(signal === undefined ? {} : { signal }) });
  return new Promise((resolve, reject) => {
    const child = spawn(line.file, line.args, { cwd: root, env: line.env, stdio: ['ignore', 'pipe', 'ignore'], ...(signal ? { signal } : {}) });
    const chunks: Buffer[] = [];
    // Every file listed is judged before rg may search: past the walk's entry bound that is too
    // much to judge, and searching unjudged files is not an option, so the search is refused.
    const max = DEFAULT_TREE_BOUNDS.maxEntries;
    let count = 0;
    let tooMany = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (tooMany) return;
      for (let i = chunk.indexOf(0); i !== -1; i = chunk.indexOf(0, i + 1)) count++;
      if (count > max) {
        tooMany = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (tooMany) {
        return reject(new Error(`grep: the search folder holds more than ${max} files, too many to check each against the read rules before searching. Search a subfolder, or narrow the files with glob.`));
      }
      // 2: some folder could not be read; the search itself reports those. 1: no files at all.
      if (code !== 0 && code !== 1 && code !== 2) return reject(new Error(`rg --files failed (exit code ${code}) while listing files to judge`));
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(text.split('\0').filter((p) => p !== '').map((p) => (p.startsWith('./') ? p.slice(2) : p)));
    });
  });
}

import { statSync } from 'node:fs';
import type { SandboxProfile, ToolCallEvent, VoteInput } from '@airlock/contract';
import { absolute, type HookFile } from './hook-files.js';
import { realTargetSync } from '@airlock/tool-common';

/** The rule id of every denial this guard gives. */
export const PROTECT_RULE = 'command-hooks/protect-hook-scripts';

/**
 * The real path a write to `path` lands on (tool-common's `realTargetSync`: symlinks, dangling
 * ones too). A path that cannot be resolved (a loop) is compared as written: a guard must not throw.
 */
function realTarget(path: string): string {
  try {
    return realTargetSync(path);
  } catch {
    return path;
  }
}

/** The hook files with both spellings: as configured and where they really are now (links can change). */
function spellings(files: readonly HookFile[]): { file: HookFile; paths: string[] }[] {
  return files.map((file) => ({ file, paths: [...new Set([file.path, realTarget(file.path)])] }));
}

/**
 * The hook file `path` is (by real path, or as the same file under another name: a hard link), or
 * — when `whole` (a removal, a move) — lies inside, if any.
 */
function hit(files: readonly HookFile[], path: string, whole: boolean): HookFile | undefined {
  const real = realTarget(path);
  const id = identity(real);
  for (const { file, paths } of spellings(files)) {
    for (const p of paths) {
      if (p === real || p === path) return file;
      if (whole && (p.startsWith(`${real}/`) || p.startsWith(`${path}/`))) return file;
      if (id !== undefined && identity(p) === id) return file;
    }
  }
  return undefined;
}

/** Device and inode of an existing file (not a folder), else undefined. */
function identity(path: string): string | undefined {
  try {
    const st = statSync(path, { bigint: true });
    return st.isDirectory() ? undefined : `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function deny(file: HookFile, path: string): VoteInput {
  return {
    effect: 'deny',
    rule: PROTECT_RULE,
    reason:
      `${path} is policy code: the command hook \`${file.command}\` runs it, so the agent may not write, create, move or remove it. ` +
      'To change a hook, edit the file yourself, outside the agent (or change the command-hooks settings).',
  };
}

/**
 * The authorize-phase guard: denies a call whose declared resources write a hook file (an
 * `fs.write` on it, real paths compared, so a link or a `..` spelling is caught), or whose
 * command line, by the shared shell analysis, writes, removes, moves or links onto one (or
 * removes or moves a folder holding one). Unsure analyses are left to path-policy and the OS
 * sandbox, which keeps hook files read-only (see hookFilesProfile).
 *
 * @example
 * api.on('tool_call', protectHookFiles(files, home, '/w'), { name: 'protect-hook-scripts', phase: 'authorize' });
 */
export function protectHookFiles(files: readonly HookFile[], home: string, cwd: string): (event: ToolCallEvent) => Promise<VoteInput | undefined> {
  return async (event) => {
    if (files.length === 0) return undefined;
    for (const r of event.resources) {
      if (r.kind === 'fs.write') {
        const file = hit(files, r.path, false) ?? (r.written === undefined ? undefined : hit(files, r.written, false));
        if (file !== undefined) return deny(file, r.written ?? r.path);
      }
      if (r.kind !== 'exec' || event.analyzeCommand === undefined) continue;
      const analysis = await event.analyzeCommand(r.command);
      if (!analysis.ok) continue;
      const base = r.cwd ?? cwd;
      for (const c of analysis.commands) {
        const dir = c.cwd === undefined ? base : absolute(c.cwd, base, home);
        const targets: [string, boolean][] = [
          ...c.writes.map((w): [string, boolean] => [w, false]),
          ...c.removes.map((w): [string, boolean] => [w, true]),
          ...c.links.filter((l) => !l.dynamic).map((l): [string, boolean] => [l.path, false]),
          // A hard link to a hook file is the same file under a name the guard does not list.
          ...c.links.filter((l) => !l.dynamic && l.kind === 'hardlink').map((l): [string, boolean] => [l.target, false]),
        ];
        for (const [word, whole] of targets) {
          const path = absolute(word, dir, home);
          const file = hit(files, path, whole);
          if (file !== undefined) return deny(file, word);
        }
      }
    }
    return undefined;
  };
}

/**
 * The OS sandbox's part: every hook file read-only where it exists, and `guarded` by name, so a
 * hook file a command creates (one that does not exist yet, or one recreated after its folder
 * was moved away) is moved aside when the command ends. It only adds: its writable list is
 * the folder the command runs in, and `addsOnly` tells the kernel not to narrow other
 * providers' roots or hosts by it.
 */
export function hookFilesProfile(files: readonly HookFile[], cwd: string): SandboxProfile {
  const all = spellings(files).flatMap((s) => s.paths);
  const named = new Set(all);
  return {
    writable: [cwd],
    readOnly: all,
    hidden: [],
    addsOnly: true,
    classify: (path) => (named.has(path) ? 'guarded' : undefined),
  };
}

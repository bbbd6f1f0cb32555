import type { SandboxService } from '@airlock/contract';

/** A program and its arguments, ready for spawn/execFile. */
export interface ProgramLine {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Starts helper programs (rg, fd) for a tool: the line to spawn for `file args` in `cwd` with
 * `env` (default: the host process's environment); `signal` ends the sandbox's walk of the
 * workspace (the call's time limit). See {@link programLauncher}.
 */
export type ProgramLauncher = (file: string, args: readonly string[], options: { cwd: string; env?: Readonly<Record<string, string | undefined>>; signal?: AbortSignal }) => Promise<ProgramLine>;

/**
 * The launcher for one call: inside the host's OS sandbox when it is active, as is when the
 * host offers none or it is off (or missing in `auto` mode, which the start-up warning named);
 * in `required` mode without a sandbox it refuses (fail closed).
 *
 * @example
 * const line = await programLauncher(ctx.sandbox)('/usr/bin/rg', ['--files'], { cwd: root });
 * spawn(line.file, line.args, { cwd: root, env: line.env });
 */
export function programLauncher(sandbox: SandboxService | undefined): ProgramLauncher {
  return async (file, args, { cwd, env = process.env, signal }) => {
    const base: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v;
    if (sandbox?.status.active) {
      const wrapped = await sandbox.wrap([file, ...args], { cwd, env: base, ...(signal === undefined ? {} : { signal }) });
      return { file: wrapped.file, args: [...wrapped.args], env: wrapped.env };
    }
    if (sandbox?.status.mode === 'required') {
      throw new Error(`Blocked: sandbox.mode is "required" and the OS sandbox cannot start, so ${file} may not run. ${sandbox.status.problem ?? ''} ${sandbox.status.fix ?? ''}`.trim());
    }
    return { file, args: [...args], env: base };
  };
}

/** Starts programs as they are, outside any sandbox (no host sandbox offered). */
export const UNSANDBOXED: ProgramLauncher = programLauncher(undefined);

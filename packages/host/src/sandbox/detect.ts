import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { FILTER_ARCHES } from './seccomp.js';

/**
 * Whether bubblewrap can start here, and if not, what is missing and how to get it; when it can,
 * whether it also applies the seccomp filter (`seccomp` says why not, when it does not).
 */
export type Detection = { ok: true; program: string; seccomp: { ok: true } | { ok: false; problem: string } } | { ok: false; problem: string; fix: string };

/** The install line people need, for every message that says the sandbox is missing. */
export const INSTALL_FIX =
  'Install bubblewrap (and socat): on Debian or Ubuntu `apt-get install bubblewrap socat`, with Homebrew on Linux `brew install bubblewrap socat`. ' +
  'Or set sandbox.mode to "off" in your user settings to run commands without it (the shell analysis then asks more).';

/**
 * Find bubblewrap (the given program, else `bwrap` on PATH) and prove it can build a sandbox
 * here with one real run: containers and kernels without user namespaces refuse, and a missing
 * binary is only the most common reason. Asynchronous on purpose (a sync spawn blocks the host).
 *
 * @example
 * const d = await detectBubblewrap({ path: process.env.PATH });
 * if (!d.ok) console.warn(`${d.problem} ${d.fix}`);
 */
export async function detectBubblewrap(options: { program?: string; path?: string; platform?: NodeJS.Platform; timeoutMs?: number; filter?: Buffer | undefined; arch?: string }): Promise<Detection> {
  const platform = options.platform ?? process.platform;
  if (platform !== 'linux') {
    return { ok: false, problem: `The OS sandbox is not available on ${platform} yet (Airlock uses bubblewrap, which is Linux only).`, fix: 'Set sandbox.mode to "off" in your user settings to run commands without it.' };
  }
  const program = options.program ?? findProgram('bwrap', options.path ?? '');
  if (program === undefined || !isExecutable(program)) {
    const what = options.program === undefined ? 'bubblewrap (`bwrap`) is not on PATH' : `bubblewrap was expected at ${options.program}, which is not an executable file`;
    return { ok: false, problem: `The OS sandbox cannot start: ${what}.`, fix: INSTALL_FIX };
  }
  const timeoutMs = options.timeoutMs ?? 5000;
  const probeArgs = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--die-with-parent'];
  // One run in the common case: the filter is tried with the sandbox itself, and only when that
  // fails is the sandbox tried alone, to tell "no sandbox" from "a sandbox without the filter".
  if (options.filter !== undefined) {
    const filtered = await run(program, [...probeArgs, '--seccomp', '3', '--', 'true'], timeoutMs, options.filter);
    if (filtered.ok) return { ok: true, program, seccomp: { ok: true } };
    const plain = await run(program, [...probeArgs, '--', 'true'], timeoutMs);
    if (plain.ok) return { ok: true, program, seccomp: { ok: false, problem: `bubblewrap could not load the seccomp filter here (${filtered.message}); the kernel may lack seccomp filters` } };
    return unusable(program, plain.message);
  }
  const probe = await run(program, [...probeArgs, '--', 'true'], timeoutMs);
  if (probe.ok) return { ok: true, program, seccomp: { ok: false, problem: `Airlock has no seccomp filter for this processor architecture (${options.arch ?? process.arch}; it has one for ${FILTER_ARCHES.join(' and ')})` } };
  return unusable(program, probe.message);
}

function unusable(program: string, message: string): Detection {
  return {
    ok: false,
    problem: `The OS sandbox cannot start: ${program} failed to build a sandbox here (${message}). Containers and systems that restrict user namespaces refuse it.`,
    fix: 'Allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or run outside the container; or set sandbox.mode to "off" in your user settings.',
  };
}

/** Run bubblewrap once; `fd3` is written to descriptor 3 (the seccomp program) when given. */
export function run(program: string, args: string[], timeoutMs: number, fd3?: Buffer): Promise<{ ok: true } | { ok: false; message: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe', ...(fd3 === undefined ? [] : ['pipe' as const])] });
    const filterPipe = child.stdio[3] as Writable | null | undefined;
    if (fd3 !== undefined && filterPipe) {
      // bubblewrap closes the descriptor once it has read the program: not an error.
      filterPipe.on('error', () => {});
      filterPipe.end(fd3);
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ ok: false, message: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 500) stderr += d.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, message: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? { ok: true } : { ok: false, message: stderr.trim().split('\n')[0] || (signal ?? `exit code ${code}`) });
    });
  });
}

/** A program on PATH (absolute entries only), or undefined. */
export function findProgram(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // a relative PATH entry would pick a program from the project
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

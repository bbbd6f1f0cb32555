import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxedCommand, SandboxMode, SandboxProfile, SandboxService, SandboxStatus } from '@airlock/kernel';
import { bwrapArgs } from './bwrap-args.js';
import { detectBubblewrap, type Detection } from './detect.js';
import { sandboxHint } from './hint.js';
import { planMounts, WalkCache, type MountPlan } from './mounts.js';

export interface SandboxOptions {
  mode: SandboxMode;
  /** The profile for a cwd (the kernel's registered providers); undefined = only `cwd` is writable. */
  profile: (cwd: string) => SandboxProfile | undefined;
  /** bubblewrap's path; default `bwrap` on `path`. For tests and SDK users, never from settings. */
  program?: string;
  /** PATH to find bubblewrap on. */
  path?: string;
  /** Where the private folder (temp folder for commands) is made; default os.tmpdir(). */
  tmpRoot?: string;
  platform?: NodeJS.Platform;
}

/** The host's sandbox: the service tools get as `ctx.sandbox`, plus what only the host needs. */
export interface HostSandbox {
  readonly service: SandboxService;
  /** The mounts a command in `cwd` would run under, in words (for `airlock policy explain`). */
  describe(cwd: string): string;
  /** Remove the private temp folder. */
  dispose(): void;
}

/**
 * Detect bubblewrap once (one probe run, at start-up) and build the sandbox service. In `off`
 * mode nothing is probed. The private folder (the commands' $TMPDIR) is made on the first wrap
 * and removed by `dispose`.
 *
 * @example
 * const sandbox = await createSandbox({ mode: 'auto', profile: (cwd) => kernel.sandboxProfile(cwd), path: process.env.PATH });
 * sandbox.service.status // { mode: 'auto', active: true }
 */
export async function createSandbox(options: SandboxOptions): Promise<HostSandbox> {
  const detection: Detection =
    options.mode === 'off'
      ? { ok: false, problem: 'sandbox.mode is "off": commands run without the OS sandbox.', fix: 'Set sandbox.mode to "auto" or "required" in your user settings.' }
      : await detectBubblewrap({
          ...(options.program === undefined ? {} : { program: options.program }),
          ...(options.path === undefined ? {} : { path: options.path }),
          ...(options.platform === undefined ? {} : { platform: options.platform }),
        });
  const status: SandboxStatus = detection.ok
    ? Object.freeze({ mode: options.mode, active: true })
    : Object.freeze({ mode: options.mode, active: false, problem: detection.problem, fix: detection.fix });

  let dir: { root: string; tmp: string; deny: string } | undefined;
  const privateDir = () => {
    if (dir !== undefined) return dir;
    const root = mkdtempSync(join(options.tmpRoot ?? tmpdir(), 'airlock-sandbox-'));
    const tmp = join(root, 'tmp');
    mkdirSync(tmp, { mode: 0o700 });
    const deny = join(root, 'hidden');
    writeFileSync(deny, '');
    chmodSync(deny, 0o000);
    return (dir = { root, tmp, deny });
  };
  const cache = new WalkCache();
  const plan = (cwd: string): MountPlan => {
    const profile = options.profile(cwd) ?? { writable: [cwd], readOnly: [], hidden: [], classify: () => undefined };
    return planMounts(profile, privateDir().tmp, { cache });
  };

  const service: SandboxService = {
    status,
    async wrap(argv, { cwd, env }): Promise<SandboxedCommand> {
      if (!detection.ok) throw new Error(`${detection.problem} ${detection.fix}`);
      const mounts = plan(cwd);
      const { tmp, deny } = privateDir();
      const args = [...bwrapArgs(mounts, { cwd, denyFile: deny }), '--', ...argv];
      return {
        file: detection.program,
        args,
        env: { ...env, TMPDIR: tmp },
        summary: summarize(mounts),
        hint: (output) => sandboxHint(output, { writable: mounts.writable }),
      };
    },
  };
  return {
    service,
    describe(cwd) {
      if (!status.active) return `none: ${status.problem}${options.mode === 'required' ? ' Commands are refused (sandbox.mode is "required").' : ''}`;
      return summarize(plan(cwd));
    },
    dispose() {
      if (dir !== undefined) rmSync(dir.root, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

function summarize(plan: MountPlan): string {
  const list = (paths: readonly string[]) => (paths.length === 0 ? 'none' : paths.length > 8 ? `${paths.slice(0, 8).join(', ')} and ${paths.length - 8} more` : paths.join(', '));
  return [
    `writable: ${list(plan.writable)} (everything else read-only)`,
    `read-only inside them: ${list(plan.readOnly)}`,
    `hidden: ${list([...plan.hiddenDirs, ...plan.hiddenFiles])}`,
    'network: none; processes: own PID namespace (Airlock is not visible), no capabilities',
  ].join('\n');
}

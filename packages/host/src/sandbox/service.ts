import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxedCommand, SandboxMode, SandboxProfile, SandboxService, SandboxStatus } from '@airlock/kernel';
import { bwrapArgs } from './bwrap-args.js';
import { detectBubblewrap, type Detection } from './detect.js';
import { sandboxHint } from './hint.js';
import { planMounts, WalkCache, type MountPlan } from './mounts.js';
import { startProxy } from './proxy.js';
import { findProgram } from './detect.js';

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
  /** Stop the network proxy and remove the private folder. */
  dispose(): Promise<void>;
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
  const plan = (cwd: string): MountPlan & { hosts: string[] } => {
    const profile = options.profile(cwd) ?? { writable: [cwd], readOnly: [], hidden: [], classify: () => undefined };
    return { ...planMounts(profile, privateDir().tmp, { cache }), hosts: [...(profile.allowedHosts ?? [])] };
  };

  // Network: none, unless net(...) allow rules name hosts and socat is there to carry the
  // proxy's Unix socket into the sandbox's own network namespace. One proxy per host, started on
  // the first command that needs it.
  const socat = detection.ok ? findProgram('socat', options.path ?? '') : undefined;
  let allowedHosts = new Set<string>();
  let proxy: Promise<{ close(): Promise<void> }> | undefined;
  const proxySocket = () => join(privateDir().root, 'proxy.sock');
  const ensureProxy = () => (proxy ??= startProxy(proxySocket(), (host) => allowedHosts.has(host)));

  const service: SandboxService = {
    status,
    async wrap(argv, { cwd, env }): Promise<SandboxedCommand> {
      if (!detection.ok) throw new Error(`${detection.problem} ${detection.fix}`);
      const mounts = plan(cwd);
      const { tmp, deny } = privateDir();
      let inside: string[] = [...argv];
      let netEnv: Record<string, string> = {};
      if (mounts.hosts.length > 0 && socat !== undefined) {
        allowedHosts = new Set(mounts.hosts);
        await ensureProxy();
        inside = [...proxyLauncher(socat, proxySocket()), ...argv];
        netEnv = proxyEnv();
      }
      const args = [...bwrapArgs(mounts, { cwd, denyFile: deny }), '--', ...inside];
      return {
        file: detection.program,
        args,
        env: { ...env, ...netEnv, TMPDIR: tmp },
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
    async dispose() {
      const running = proxy;
      proxy = undefined;
      if (running !== undefined) await (await running.catch(() => undefined))?.close();
      if (dir !== undefined) rmSync(dir.root, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

/** Where the proxy listens inside the sandbox's own network namespace. */
const PROXY_PORT = 3128;

/**
 * The sandbox's first process: socat listens on 127.0.0.1:3128 inside (the sandbox's own
 * loopback) and carries each connection to the proxy's Unix socket outside; the command starts
 * once it listens.
 */
function proxyLauncher(socat: string, socket: string): string[] {
  const script =
    `"$0" TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$1" </dev/null >/dev/null 2>&1 & ` +
    `for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null && break; sleep 0.01; done; shift; exec "$@"`;
  return ['/bin/bash', '-c', script, socat, socket];
}

function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: '', no_proxy: '' };
}

function summarize(plan: MountPlan & { hosts?: string[] }): string {
  const list = (paths: readonly string[]) => (paths.length === 0 ? 'none' : paths.length > 8 ? `${paths.slice(0, 8).join(', ')} and ${paths.length - 8} more` : paths.join(', '));
  return [
    `writable: ${list(plan.writable)} (everything else read-only)`,
    `read-only inside them: ${list(plan.readOnly)}`,
    `hidden: ${list([...plan.hiddenDirs, ...plan.hiddenFiles])}`,
    `network: ${plan.hosts !== undefined && plan.hosts.length > 0 ? `only ${list(plan.hosts)} through Airlock's proxy (net allow rules; needs socat)` : 'none'}; processes: own PID namespace (Airlock is not visible), no capabilities`,
  ].join('\n');
}

import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostAllowed } from '@airlock/toolkit';
import { type SandboxedCommand, type SandboxMode, type SandboxProfile, type SandboxService, type SandboxStatus } from '@airlock/contract';
import { bwrapArgs } from './bwrap-args.js';
import { detectBubblewrap, type Detection } from './detect.js';
import { sandboxHint } from './hint.js';
import { appeared, identities, planMounts, planMountsSync, replaced, SandboxPlanError, WalkCache, type MountPlan, type WalkBounds } from './mounts.js';
import { startProxy, TOKEN_USER } from './proxy.js';
import { findProgram, run } from './detect.js';
import { inheritedDescriptors } from './inherited-fds.js';
import { launchLine, PROXY_PORT } from './launch.js';
import { unixSocketFilter } from './seccomp.js';
import { withoutSocketVariables } from './socket-env.js';

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
  /** The processor architecture the seccomp filter is built for; default `process.arch`. For tests (an architecture without a filter). */
  arch?: string;
  /** Bounds of the walk of the writable roots before and after each command (default DEFAULT_WALK_BOUNDS; for tests and SDK users). */
  walk?: Partial<WalkBounds>;
}

/** The host's sandbox: the service tools get as `ctx.sandbox`, plus what only the host needs. */
export interface HostSandbox {
  readonly service: SandboxService;
  /**
   * The mounts a command in `cwd` would run under, in words (for `airlock policy explain`), with
   * the hosts its call names (opened for it alone once the call is allowed).
   */
  describe(cwd: string, hosts?: readonly string[]): string;
  /**
   * The host is about to write a guarded file itself (a person's "always allow" saved to
   * `.airlock/settings.local.json`): a command running meanwhile must not have it moved aside.
   */
  expectWrite(path: string): void;
  /**
   * Walk the workspace for `cwd` soon (200 ms from now, or when the first command comes), in the
   * background, so the first command finds the walk done (or joins it) instead of paying for the
   * whole first listing. It only fills the cache: every command still walks (one stat per
   * unchanged folder), so nothing it learned is trusted unchecked. Does nothing when the sandbox
   * is not active.
   */
  warm(cwd: string): void;
  /**
   * A call started (+1) or ended (-1) in this host: the background walk steps aside while any
   * call runs, so it never slows a small call (a command that needs the walk still joins it).
   */
  calls(change: 1 | -1): void;
  /** Stop the network proxy and remove the private folder. */
  dispose(): Promise<void>;
}

/**
 * Detect bubblewrap once (one probe run, at start-up) and build the sandbox service. In `off`
 * mode nothing is probed. The private folder (the commands' $TMPDIR) is made on the first wrap
 * and removed by `dispose`.
 *
 * @example
 * const sandbox = await createSandbox({ mode: 'auto', profile: (cwd) => services.sandboxProfiles.profile(cwd), path: process.env.PATH });
 * sandbox.service.status // { mode: 'auto', active: true }
 */
export async function createSandbox(options: SandboxOptions): Promise<HostSandbox> {
  const filter = unixSocketFilter(options.arch);
  const found: Detection =
    options.mode === 'off'
      ? { ok: false, problem: 'sandbox.mode is "off": commands run without the OS sandbox.', fix: 'Set sandbox.mode to "auto" or "required" in your user settings.' }
      : await detectBubblewrap({
          ...(options.program === undefined ? {} : { program: options.program }),
          ...(options.path === undefined ? {} : { path: options.path }),
          ...(options.platform === undefined ? {} : { platform: options.platform }),
          ...(options.arch === undefined ? {} : { arch: options.arch }),
          filter,
        });
  // Without the filter every Unix socket on the machine is reachable from inside: `required`
  // takes that as no sandbox at all, `auto` runs it and says, once, that it is weaker.
  const detection: Detection =
    found.ok && !found.seccomp.ok && options.mode === 'required'
      ? { ok: false, problem: `The OS sandbox cannot block Unix sockets: ${found.seccomp.problem}, so a command could reach any socket on the machine (an SSH agent, a tmux server, docker.sock).`, fix: `${SECCOMP_FIX} Or set sandbox.mode to "auto" in your user settings to run with the weaker sandbox.` }
      : found;
  const seccomp = detection.ok && detection.seccomp.ok;
  const status: SandboxStatus = detection.ok
    ? Object.freeze({
        mode: options.mode,
        active: true,
        unixSockets: seccomp ? 'blocked' : 'reachable',
        ...(detection.seccomp.ok ? {} : { weaker: `The OS sandbox runs without its seccomp filter: ${detection.seccomp.problem}. Commands can connect to any Unix socket on the machine (an SSH agent, a tmux server, docker.sock, D-Bus). ${SECCOMP_FIX} Set sandbox.mode to "required" to refuse commands instead.` }),
      })
    : Object.freeze({ mode: options.mode, active: false, problem: detection.problem, fix: detection.fix });

  let dir: { root: string; tmp: string; deny: string; filter: string | undefined; close: number[] } | undefined;
  const privateDir = () => {
    if (dir !== undefined) return dir;
    const root = mkdtempSync(join(options.tmpRoot ?? tmpdir(), 'airlock-sandbox-'));
    const tmp = join(root, 'tmp');
    mkdirSync(tmp, { mode: 0o700 });
    const deny = join(root, 'hidden');
    writeFileSync(deny, '');
    chmodSync(deny, 0o000);
    let filterFile: string | undefined;
    if (seccomp && filter !== undefined) {
      filterFile = join(root, 'unix-sockets.bpf');
      writeFileSync(filterFile, filter, { mode: 0o400 });
    }
    return (dir = { root, tmp, deny, filter: filterFile, close: inheritedDescriptors() });
  };
  const cache = new WalkCache();
  let latest: SandboxProfile | undefined;
  const profileFor = (cwd: string): SandboxProfile => {
    const profile = options.profile(cwd) ?? { writable: [cwd], readOnly: [], hidden: [], classify: () => undefined };
    latest = profile;
    return profile;
  };
  const bounds = options.walk ?? {};
  // The walk started when the host opened (warm), until it ends; a command waits for it rather
  // than listing the same folders beside it.
  let warming: Promise<void> | undefined;
  /** Starts the walk at once if it is still waiting for its delay (see warm). */
  let startWarming: (() => void) | undefined;
  let waiting = 0;
  const stopWarming = new AbortController();
  // Calls running in the host, and the wake-up of a background walk waiting for them to end.
  let running = 0;
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;
  const wakeWalk = () => {
    idle?.resolve();
    idle = undefined;
  };
  const background = {
    needed: () => waiting > 0,
    busy: () => {
      if (running === 0) return undefined;
      if (idle === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        idle = { promise, resolve };
      }
      return idle.promise;
    },
  };
  const plan = async (cwd: string, signal: AbortSignal | undefined): Promise<MountPlan & { hosts: string[]; profile: SandboxProfile }> => {
    if (warming !== undefined) {
      startWarming?.();
      waiting++;
      wakeWalk();
      try {
        await untilAborted(warming, signal);
      } finally {
        waiting--;
      }
    }
    const profile = profileFor(cwd);
    const mounts = await planMounts(profile, privateDir().tmp, { cache, bounds, ...(signal === undefined ? {} : { signal }) });
    return { ...mounts, hosts: [...(profile.allowedHosts ?? [])], profile };
  };

  // Network: none, unless the rules allow hosts or a command's call was allowed to reach hosts it
  // names, and socat is there to carry the proxy's Unix socket into the sandbox's own network
  // namespace. One proxy per host, started on the first command that needs it. A command's own
  // hosts are keyed by a random token only that command's environment holds (each command has
  // its own PID namespace, so no other command can read it), and forgotten when it is released.
  const socat = detection.ok ? findProgram('socat', options.path ?? '') : undefined;
  const nests = process.geteuid?.() === 0 ? ('as-root' as const) : ('as-user' as const);
  // The nested sandbox a networked command runs in is tried once, on the first such command: a
  // container may forbid nesting. Where it cannot start, commands get no network (never the
  // bridge beside a filtered command, which the command could ptrace).
  let nesting: Promise<string | undefined> | undefined;
  const nestingProblem = (cwd: string, deny: string, filterFile: string) =>
    (nesting ??= runLine(launchLine({
      bwrap: detection.ok ? detection.program : 'bwrap',
      sandbox: bwrapArgs({ writable: [], readOnly: [], hiddenDirs: [], hiddenFiles: [], guarded: [] }, { cwd, denyFile: deny, nests }),
      argv: ['true'],
      cwd,
      filter: filterFile,
      proxy: { socat: socat ?? 'socat', socket: join(privateDir().root, 'nesting-probe.sock') },
    })));
  const grants = new Map<string, ReadonlySet<string>>();
  let proxy: Promise<{ close(): Promise<void> }> | undefined;
  const proxySocket = () => join(privateDir().root, 'proxy.sock');
  const ensureProxy = () =>
    (proxy ??= startProxy(proxySocket(), {
      allowed: (host) => latest !== undefined && hostAllowed(latest, host),
      grantedTo: (token) => grants.get(token),
    }));

  const service: SandboxService = {
    status,
    async wrap(argv, { cwd, env, hosts, signal }): Promise<SandboxedCommand> {
      if (!detection.ok) throw new Error(`${detection.problem} ${detection.fix}`);
      const startedAt = Date.now();
      const mounts = await plan(cwd, signal);
      const guardedIds = identities(mounts.guarded);
      const { tmp, deny, filter: filterFile, close } = privateDir();
      let released = false;
      const own = [...new Set((hosts ?? []).map((h) => h.toLowerCase()))];
      let netEnv: Record<string, string> = {};
      let token: string | undefined;
      const wantsNetwork = (mounts.hosts.length > 0 || own.length > 0) && socat !== undefined;
      const cannotNest = wantsNetwork && filterFile !== undefined ? await nestingProblem(cwd, deny, filterFile) : undefined;
      const networked = wantsNetwork && cannotNest === undefined;
      if (networked) {
        await ensureProxy();
        if (own.length > 0) {
          token = randomBytes(18).toString('base64url');
          grants.set(token, new Set(own));
        }
        netEnv = proxyEnv(token);
      }
      const line = launchLine({
        bwrap: detection.program,
        sandbox: bwrapArgs(mounts, { cwd, denyFile: deny, ...(networked && filterFile !== undefined ? { nests } : {}) }),
        argv,
        cwd,
        close,
        ...(filterFile === undefined ? {} : { filter: filterFile }),
        ...(networked ? { proxy: { socat, socket: proxySocket() } } : {}),
      });
      return {
        file: line.file,
        args: line.args,
        env: { ...withoutSocketVariables(env), ...netEnv, TMPDIR: tmp },
        // bwrapArgs always unshares the PID namespace (its init ends every process in it when the
        // command exits) and dies with its parent, also the inner one beside the proxy bridge.
        processesEndWithIt: true,
        summary: summarize({ ...mounts, own: socat === undefined ? [] : own, unixSockets: seccomp ? 'blocked' : 'reachable', ...(cannotNest === undefined ? {} : { noNetwork: cannotNest }) }),
        hint: (output) => sandboxHint(output, { writable: mounts.writable }),
        release: async () => {
          if (released) return undefined;
          released = true;
          if (token !== undefined) grants.delete(token);
          return takeBack(mounts.profile, mounts.guarded, guardedIds, startedAt);
        },
      };
    },
  };

  // Guarded settings files a command created: a mount covers only what exists when the command
  // starts, so the walk runs again when it ends (cheap: unchanged folders are not listed again)
  // and what appeared is renamed out of the way — kept, so nothing is lost, under a name no
  // settings discovery reads.
  const expected = new Map<string, number>();
  const takeBack = async (profile: SandboxProfile, before: readonly string[], beforeIds: ReadonlyMap<string, string>, startedAt: number): Promise<string | undefined> => {
    let after: string[];
    let incomplete: string | undefined;
    try {
      // No temp folder needed to look: a command that ends after dispose must not make a new one.
      // The profile the command started under: its verdicts are per entry, so it judges new ones too.
      after = (await planMounts(profile, '', { cache, bounds })).guarded;
    } catch (error) {
      // Past a bound (the command made the tree too deep or too big), what the walk found first
      // is still taken back: it goes breadth first, and settings files sit near the top.
      if (!(error instanceof SandboxPlanError) || error.guarded === undefined) return `[sandbox] Could not check what the command created (${(error as Error).message}).`;
      after = error.guarded;
      incomplete = `[sandbox] Could not check everything the command created: ${error.message}`;
    }
    const moved: string[] = [];
    const failed: string[] = [];
    for (const path of [...appeared(before, after), ...replaced(beforeIds, after)]) {
      if (hostWrote(path, startedAt)) continue;
      const aside = `${path}.airlock-blocked-${Date.now()}`;
      try {
        renameSync(path, aside);
        moved.push(`${path} → ${aside}`);
      } catch (error) {
        failed.push(`${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    if (moved.length === 0 && failed.length === 0) return incomplete;
    return [
      ...(incomplete === undefined ? [] : [`${incomplete}\n`]),
      "[sandbox] The command created or replaced files only a person may write (Airlock settings, or scripts a command hook runs: they could change the rules of later calls and sessions). ",
      moved.length > 0 ? `Moved aside, not deleted: ${moved.join('; ')}. ` : '',
      failed.length > 0 ? `Could not move: ${failed.join('; ')}; tell the user to check them before the next run. ` : '',
      'If the task needs such a change, tell the user what to change and where.',
    ].join('');
  };
  const hostWrote = (path: string, since: number): boolean => {
    for (const [file, at] of expected) if (at >= since - 1000 && (file === path || file.startsWith(`${path}/`))) return true;
    return false;
  };

  return {
    service,
    describe(cwd, hosts = []) {
      if (!status.active) return `none: ${status.problem}${options.mode === 'required' ? ' Commands are refused (sandbox.mode is "required").' : ''}`;
      const profile = profileFor(cwd);
      let mounts: MountPlan;
      try {
        mounts = planMountsSync(profile, privateDir().tmp, { cache, bounds });
      } catch (error) {
        return `none: ${(error as Error).message}`;
      }
      return summarize({ ...mounts, hosts: [...(profile.allowedHosts ?? [])], own: socat === undefined ? [] : [...hosts], unixSockets: seccomp ? 'blocked' : 'reachable' });
    },
    warm(cwd) {
      if (!status.active || warming !== undefined) return;
      // After a short delay, or at once when a command comes first: a one-shot CLI call that
      // runs no command (`airlock call read`) is done and closed before the walk starts.
      const walked = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, WARM_DELAY_MS).unref();
        startWarming = () => {
          clearTimeout(timer);
          resolve();
        };
      }).then(() => {
        startWarming = undefined;
        const profile = options.profile(cwd) ?? { writable: [cwd], readOnly: [], hidden: [], classify: () => undefined };
        return planMounts(profile, '', { cache, bounds, signal: stopWarming.signal, background });
      });
      // Past a bound, a profile that throws, or stopped: the command's own plan meets the same and says so.
      warming = walked.then(
        () => undefined,
        () => undefined,
      );
      void warming.then(() => {
        warming = undefined;
      });
    },
    calls(change) {
      running = Math.max(0, running + change);
      if (running === 0) wakeWalk();
    },
    expectWrite(path) {
      const now = Date.now();
      // Forget old notes: a write is only relevant to commands running when it happened.
      for (const [file, at] of expected) if (at < now - 10 * 60_000) expected.delete(file);
      expected.set(path, now);
    },
    async dispose() {
      stopWarming.abort();
      wakeWalk();
      const running = proxy;
      proxy = undefined;
      if (running !== undefined) await (await running.catch(() => undefined))?.close();
      if (dir !== undefined) rmSync(dir.root, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

/** How long after the host opens its walk of the workspace starts, unless a command comes first. */
const WARM_DELAY_MS = 200;

/**
 * Wait for the background walk, or until `signal` aborts (then reject with its reason). The
 * background walk does not keep the process alive; while a command waits for it, this does.
 */
function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  const alive = setInterval(() => {}, 60_000);
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearInterval(alive);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
    void work.then(() => {
      clearInterval(alive);
      signal?.removeEventListener('abort', stop);
      resolve();
    });
  });
}

/** The proxy variables; a command with hosts of its own carries its token as proxy credentials. */
function proxyEnv(token: string | undefined): Record<string, string> {
  const url = `http://${token === undefined ? '' : `${TOKEN_USER}:${token}@`}127.0.0.1:${PROXY_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: '', no_proxy: '' };
}

function summarize(plan: MountPlan & { hosts?: string[]; own?: string[]; unixSockets?: 'blocked' | 'reachable'; noNetwork?: string }): string {
  const list = (paths: readonly string[]) => (paths.length === 0 ? 'none' : paths.length > 8 ? `${paths.slice(0, 8).join(', ')} and ${paths.length - 8} more` : paths.join(', '));
  return [
    `writable: ${list(plan.writable)} (everything else read-only)`,
    `read-only inside them: ${list(plan.readOnly)}`,
    `hidden: ${list([...plan.hiddenDirs, ...plan.hiddenFiles])}`,
    `network: ${plan.noNetwork === undefined ? network(plan.hosts ?? [], plan.own ?? [], list) : `none: the nested sandbox the proxy needs cannot start here (${plan.noNetwork})`}; processes: own PID namespace (Airlock is not visible), no capabilities`,
    `Unix sockets: ${plan.unixSockets === 'blocked' ? 'none can be opened (seccomp filter), so no socket on the machine is reachable; variables naming one are removed, and only descriptors 0-2 are passed in' : 'REACHABLE: the seccomp filter does not apply here, so a command can connect to any socket on the machine'}`,
  ].join('\n');
}

/** Run a command line once: undefined when it succeeded, else why not. */
async function runLine(line: { file: string; args: string[] }): Promise<string | undefined> {
  const result = await run(line.file, line.args, 10_000);
  return result.ok ? undefined : result.message;
}

/** What to do where the seccomp filter cannot apply. */
const SECCOMP_FIX =
  'Run Airlock on x86_64 or arm64 Linux with a kernel that has seccomp filters (CONFIG_SECCOMP_FILTER, standard in distribution kernels).';

function network(rules: readonly string[], own: readonly string[], list: (p: readonly string[]) => string): string {
  const parts: string[] = [];
  if (rules.length > 0) parts.push(`${rules.includes('*') ? 'any host but those ask and deny rules cover' : list(rules)} (net allow rules)`);
  if (own.length > 0) parts.push(`${list(own)} for this command alone, once its call is allowed`);
  return parts.length === 0 ? 'none' : `only ${parts.join(', and ')} through Airlock's proxy (needs socat)`;
}

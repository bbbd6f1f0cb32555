import type { SandboxService, SandboxWrapOptions } from '@airlock/contract';
import type { CallState } from '../state/call-state.js';

/**
 * The sandbox as one call sees it (`ctx.sandbox`): the host's sandbox, plus the network hosts the
 * call's policy votes named, once the call was allowed. A person who approves `curl x.test`
 * approves reaching x.test for that command — not for the session, and not for the next call.
 * Read when the tool wraps a process, so it sees the final decision (and a re-check's votes).
 *
 * @example
 * const sandbox = callSandbox(host.sandbox, state);
 * await sandbox.wrap(['bash', '-c', 'curl https://x.test'], { cwd, env }); // x.test reachable if a vote named it
 */
export function callSandbox(sandbox: SandboxService, state: CallState): SandboxService {
  return {
    status: sandbox.status,
    wrap: (argv, options) => {
      const granted = grantedHosts(state);
      if (granted.length === 0) return sandbox.wrap(argv, options);
      const wanted: SandboxWrapOptions = { ...options, hosts: [...new Set([...(options.hosts ?? []), ...granted])] };
      return sandbox.wrap(argv, wanted);
    },
  };
}

/** The hosts the votes of an allowed call named; none while it is undecided or denied. */
export function grantedHosts(state: CallState): string[] {
  if (state.decision?.effect !== 'allow') return [];
  const hosts: string[] = [];
  for (const vote of state.votes) if (vote.hosts !== undefined) hosts.push(...vote.hosts);
  return hosts;
}

import type { AgentActivity, Logger } from '@airlock/contract';
import { AccessChecks } from './access-checks.js';
import { EventListeners } from './event-listeners.js';
import { SandboxProfiles } from './sandbox-profiles.js';
import { TextRedactors } from './text-redactors.js';

/**
 * What a host keeps for its extensions beside the kernel: the per-file access checks tools consult
 * through `ctx.access`, the text redactors for what leaves the tool pipeline, the providers of the
 * OS sandbox's file rules, and the listeners of what agent loops report. Extensions reach them
 * through `api` (`registerAccessCheck`, `registerRedactor`, `registerSandboxProfile`,
 * `onAgentActivity`); the kernel only sees the access checks, as where each call's `ctx.access`
 * comes from. One object per host, so two hosts in a process never share a check.
 *
 * @example
 * const services = new HostServices(log);
 * const kernel = createKernel({ cwd, access: services.access });
 * services.access.add('me/env', ({ path }) => (path.endsWith('.env') ? { effect: 'deny', reason: 'secrets stay closed' } : undefined));
 */
export class HostServices {
  readonly access = new AccessChecks();
  readonly redactors = new TextRedactors();
  readonly sandboxProfiles = new SandboxProfiles();
  /** Listeners of runs, turns and model requests (never message content); see AgentActivity. */
  readonly activity: EventListeners<AgentActivity>;

  /**
   * The file the session's transcript is written to, set by the program that opened it after the
   * host (`airlock run`, an SDK agent); extensions read it as `api.transcriptPath()` (command
   * hooks hand it to hook scripts as `transcript_path`). Undefined while no transcript is kept.
   */
  transcriptPath: string | undefined = undefined;

  constructor(log: Logger) {
    this.activity = new EventListeners(log, 'api.onAgentActivity', 'agent activity listener');
  }
}

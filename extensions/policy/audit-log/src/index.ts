import { homedir } from 'node:os';
import type { Extension, ExtensionAPI } from '@airlock/contract';
import { headsDir, resolveAuditPath } from '@airlock/audit-format';
import { createAuditLogger, type AuditLogger } from './logger.js';
import { AuditOptions, resolveOptions, type AuditOptionsInput } from './options.js';
import { createAuditRedactor } from './redact.js';

/**
 * The audit log as an extension: observe handlers on both hooks, one hash-chained JSON line per
 * decision and per result. Observers fail open: a log that cannot be written is reported as a
 * hook failure on every call, and the calls go on (this is a record, not a policy).
 */
const loggers = new WeakMap<ExtensionAPI, AuditLogger>();

const extension = {
  name: 'audit-log',
  options: AuditOptions,
  setup(api, input) {
    loggers.set(api, installAuditLog(api, input));
  },
  // The writer keeps the log's lock while records flow: the host's close lets it go and moves the head.
  async dispose(api) {
    await loggers.get(api)?.close();
  },
} satisfies Extension<typeof AuditOptions>;

/** What setup runs, with the machine's details injectable so tests need no real home folder. */
export interface InstallDeps {
  env?: Readonly<Record<string, string | undefined>>;
  home?: string;
  session?: string;
  now?: () => Date;
}

/** Register the audit log's handlers on `api`; returns the logger (its writer has stats and close()). */
export function installAuditLog(api: ExtensionAPI, input: AuditOptionsInput, deps: InstallDeps = {}): AuditLogger {
  const resolved = resolveOptions(input);
  if (!resolved.ok) throw new Error(resolved.message);
  const options = resolved.value;
  const env = deps.env ?? api.env;
  // The home the host was opened with (its env), as `airlock audit verify|tail` read it: a host
  // embedded with another HOME than the process's must not log to one place and verify another.
  const where = { env, home: deps.home ?? (env.HOME || homedir()) };
  const logger = createAuditLogger({
    ...options,
    path: resolveAuditPath(options.path, api.cwd, where),
    // Always in the user's state folder, whatever the log's path: never beside the log.
    headsDir: headsDir(where),
    // The person running the agent hears of a cut log or a planted lock now, not at the next verify.
    onWarning: (message) => api.log.warn(message),
    // The kernel's session, the one tools see as ctx.sessionId (spill folders carry it too).
    session: deps.session ?? api.sessionId,
    redactor: createAuditRedactor({ env, allow: options.allow, secretFiles: { home: where.home, workspace: api.cwd } }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  api.on('tool_call', (event) => logger.decision(event), { name: 'audit-log/decisions', phase: 'observe' });
  api.on('tool_result', (event) => logger.result(event), { name: 'audit-log/results', phase: 'observe' });
  return logger;
}

export default extension;
export { createAuditLogger, type AuditLogger } from './logger.js';
export { AuditWriter, type FsyncPolicy, type WriterOptions, type WriterStats } from './writer.js';
export { AuditOptions, resolveOptions, type AuditOptionsInput } from './options.js';
export { AuditRecord, DecisionRecord, ResultRecord, RecoveryRecord, HeadMismatchRecord, DecisionSource, FORMAT_VERSION } from './record.js';
export { lockLog, type LockHold, type LockOptions } from './lock.js';
export { canonicalJson, sha256Hex } from '@airlock/audit-format';
export * from './cli.js';
export { auditTailCommand, auditVerifyCommand, type AuditCommandIO, type AuditGlobals } from './command.js';

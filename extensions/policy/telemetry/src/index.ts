import type { Context } from '@opentelemetry/api';
import Type, { type TSchema } from 'typebox';
import type { Extension, ExtensionAPI } from '@airlock/contract';
import { createRedactor, createSecretScanner } from '@airlock/secrets';
import { resolveTelemetry, TelemetrySettings, type TelemetryConfig } from './config.js';
import { createRecorder, type Recorder } from './recorder.js';
import { createAgentSpans, type AgentSpans } from './agent-spans.js';
import { createAuditExport } from './audit-export.js';
import { auditLogPath, ExtensionEntries } from './audit-location.js';
import type { TelemetryPipeline } from './pipeline.js';

interface Running {
  pipeline: TelemetryPipeline;
  drainAudit: () => void;
  recorder: Recorder;
  agent: AgentSpans;
  flushTimeoutMs: number;
}

const running = new WeakMap<ExtensionAPI, Running>();

/** The settings it reads: its own section, and the extensions list, which says where the audit log it exports is. */
const Settings = Type.Object({ telemetry: TelemetrySettings, extensions: ExtensionEntries });

/**
 * OpenTelemetry export as an extension: an observer of the kernel's events and of the agent's
 * activity (runs, turns, model requests). In the default set and free when off: unless an OTLP
 * endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or the `telemetry` settings section), setup
 * returns before the SDK is loaded.
 */
const extension = {
  name: 'telemetry',
  settings: Settings,
  async setup(api) {
    const resolved = resolveTelemetry(api.env, api.settings.telemetry);
    if (!resolved.on) return;
    // Loaded only now: the SDK is never evaluated while telemetry is off.
    const { startPipeline, packageVersion } = await import('./pipeline.js');
    const version = packageVersion();
    const auditPath = auditLogPath(api);
    installTelemetry(api, startPipeline(resolved.config, version), resolved.config, version, auditPath === undefined ? {} : { auditPath });
  },
  async dispose(api) {
    await stopTelemetry(api);
  },
} satisfies Extension<TSchema, typeof Settings>;

/**
 * Connect `pipeline` to `api`'s kernel events. Exposed so tests and embedders can hand in their own
 * pipeline (e.g. over the in-memory exporter). Audit records are exported from `auditPath` when
 * given (the extension finds it with `auditLogPath`).
 *
 * @example
 * installTelemetry(api, { api: otel, tracer, meter, logger: undefined, shutdown: async () => {} }, config, '1.0.0');
 */
export function installTelemetry(
  api: ExtensionAPI,
  pipeline: TelemetryPipeline,
  config: Pick<TelemetryConfig, 'exportContent' | 'flushTimeoutMs'>,
  version: string,
  options: { auditPath?: string } = {},
): Recorder {
  // Content export sends arguments and results through the same secret scanner as the audit log.
  const redactor = config.exportContent ? createRedactor(createSecretScanner({ env: api.env, allow: [] })) : undefined;
  const auditPath = pipeline.logger === undefined ? undefined : options.auditPath;
  const audit = auditPath === undefined || pipeline.logger === undefined ? undefined : createAuditExport(auditPath, pipeline.logger, config.exportContent);
  const agent = createAgentSpans(pipeline, { sessionId: api.sessionId });
  const recorder = createRecorder(pipeline, {
    sessionId: api.sessionId,
    parentOf: agent.parentOf,
    ...(api.loadedExtensions === undefined ? {} : { extensions: () => api.loadedExtensions!() }),
    kernelVersion: api.kernelVersion,
    version,
    exportContent: config.exportContent,
    redact: (value) => (redactor === undefined ? value : redactor.value(value)),
    ...(audit === undefined ? {} : { afterCall: (toolCallId: string, context: Context) => audit.afterCall(toolCallId, context) }),
  });
  api.onEvent(recorder.onEvent);
  // Runs, turns and model requests, from whichever agent drives this host (older hosts have no such channel).
  api.onAgentActivity?.(agent.onActivity);
  running.set(api, { pipeline, recorder, agent, flushTimeoutMs: config.flushTimeoutMs, drainAudit: () => audit?.close() });
  return recorder;
}

/** Deliver what is buffered, waiting at most the flush budget; never rejects. */
export async function stopTelemetry(api: ExtensionAPI): Promise<void> {
  const state = running.get(api);
  if (state === undefined) return;
  running.delete(api);
  state.recorder.endOpen();
  state.agent.endOpen();
  state.drainAudit();
  await state.pipeline.shutdown(state.flushTimeoutMs);
}

export default extension;
export { resolveTelemetry, parseKeyValueList, TelemetrySettings, DEFAULT_FLUSH_TIMEOUT_MS, type TelemetryConfig, type ResolvedTelemetry } from './config.js';
export { createAuditExport, exportedBody } from './audit-export.js';
export { auditLogPath, ExtensionEntries } from './audit-location.js';
export { createRecorder, type Recorder, type RecorderOptions } from './recorder.js';
export { createAgentSpans, type AgentSpans, type AgentSpansOptions } from './agent-spans.js';
export type { TelemetryPipeline, TelemetrySinks } from './pipeline.js';

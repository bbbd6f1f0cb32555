import { join } from 'node:path';
import Type from 'typebox';
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { installAuditLog } from '@airlock/audit-log';
import type { Kernel } from '@airlock/kernel';
import { defineTool, type AgentActivity, type ExtensionAPI, type LoadedExtensionInfo } from '@airlock/contract';
import type { HostServices } from '@airlock/toolkit';
import { createTestApi, createTestHost, makeTempDir } from '@airlock/kernel/testing';
import { installTelemetry, stopTelemetry } from '../src/index.js';

/** The ExtensionAPI the host would give, on a kernel, with this cwd and environment. */
export function apiFor(kernel: Kernel, cwd: string, env: Record<string, string> = {}, overrides: Partial<ExtensionAPI> = {}, services?: HostServices): ExtensionAPI {
  return createTestApi(kernel, { cwd, env, ...overrides }, services);
}

export const echo = defineTool({
  name: 'echo',
  label: 'Echo',
  description: 'Repeat the text back.',
  parameters: Type.Object({ text: Type.String() }, { additionalProperties: false }),
  async execute(_id, { text }) {
    return { content: [{ type: 'text', text }] };
  },
});

/** Reads nothing, but declares a read the way a file tool does: the file it would open, and the spelling the model used. */
export const peek = defineTool({
  name: 'peek',
  label: 'Peek',
  description: 'Pretend to read a file.',
  parameters: Type.Object({ path: Type.String() }, { additionalProperties: false }),
  resources: ({ path }, ctx) => [{ kind: 'fs.read', path: join(ctx.cwd, 'real', path.split('/').pop()!), written: path }],
  async execute() {
    return { content: [{ type: 'text', text: 'peeked' }] };
  },
});

/** Waits until the run is aborted. */
export const wait = defineTool({
  name: 'wait',
  label: 'Wait',
  description: 'Wait until aborted.',
  parameters: Type.Object({}, { additionalProperties: false }),
  async execute(_id, _args, signal) {
    await new Promise<void>((resolve) => {
      if (signal?.aborted) resolve();
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    throw new Error('aborted');
  },
});

/** A kernel with echo and wait, telemetry installed over in-memory exporters. */
export function tracedKernel(options: { exportContent?: boolean; env?: Record<string, string>; audit?: boolean; extensions?: readonly LoadedExtensionInfo[] } = {}) {
  const dir = makeTempDir('airlock-telemetry-');
  const { kernel, services } = createTestHost({ cwd: dir, spill: { dir: join(dir, 'spill') } });
  kernel.registry.register(echo, { source: 'sdk' });
  kernel.registry.register(wait, { source: 'sdk' });
  kernel.registry.register(peek, { source: 'sdk' });
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 60_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const api = apiFor(kernel, dir, options.env, options.extensions === undefined ? {} : { loadedExtensions: () => options.extensions! }, services);
  const auditPath = join(dir, 'audit', 'audit.jsonl');
  const auditLogger = options.audit === true ? installAuditLog(apiFor(kernel, dir, options.env), { path: auditPath, fsync: 'never' }, { env: {}, home: dir }) : undefined;
  const logs = new InMemoryLogRecordExporter();
  let kept: ReadableSpan[] | undefined;
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logs })] });
  installTelemetry(
    api,
    {
      api: otel,
      tracer: tracerProvider.getTracer('test'),
      meter: meterProvider.getMeter('test'),
      logger: options.audit === true ? loggerProvider.getLogger('airlock.audit') : undefined,
      shutdown: async () => {
        await reader.forceFlush();
        await tracerProvider.forceFlush();
        // Shutting the exporter down empties it: keep what it holds for the test to read.
        kept = spans.getFinishedSpans().slice();
        await tracerProvider.shutdown();
      },
    },
    { exportContent: options.exportContent ?? false, flushTimeoutMs: 2000 },
    '1.0.0',
    { auditPath },
  );
  return {
    auditPath,
    dir,
    logs: () => logs.getFinishedLogRecords(),
    closeAudit: () => auditLogger?.close(),
    kernel,
    /** Report agent activity as a host would (what `kernelRunner(kernel, undefined, t.activity)` does for a loop). */
    activity: (a: AgentActivity) => services.activity.emit(a),
    spans: (): ReadableSpan[] => kept ?? spans.getFinishedSpans(),
    /** Flush the metrics and return every data point by metric name. */
    async metrics(): Promise<Map<string, { attributes: Record<string, unknown>; value: unknown }[]>> {
      await stopTelemetry(api);
      const out = new Map<string, { attributes: Record<string, unknown>; value: unknown }[]>();
      for (const rm of metrics.getMetrics()) {
        for (const sm of rm.scopeMetrics) {
          for (const m of sm.metrics) {
            out.set(m.descriptor.name, m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })));
          }
        }
      }
      return out;
    },
    stop: () => stopTelemetry(api),
  };
}

/** A span's events by name. */
export function eventsNamed(span: ReadableSpan, name: string) {
  return span.events.filter((e) => e.name === name);
}

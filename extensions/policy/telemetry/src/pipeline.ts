import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';
import type * as ApiLogs from '@opentelemetry/api-logs';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type * as SdkMetrics from '@opentelemetry/sdk-metrics';
import type * as SdkLogs from '@opentelemetry/sdk-logs';
import type * as Resources from '@opentelemetry/resources';
import type * as TraceHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as TraceProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as MetricsHttp from '@opentelemetry/exporter-metrics-otlp-http';
import type * as MetricsProto from '@opentelemetry/exporter-metrics-otlp-proto';
import type * as LogsHttp from '@opentelemetry/exporter-logs-otlp-http';
import type * as LogsProto from '@opentelemetry/exporter-logs-otlp-proto';
import type { TelemetryConfig } from './config.js';

/**
 * What the recorder writes to: a tracer, a meter, a logger, and the API's context helpers from
 * the same copy of `@opentelemetry/api` the SDK registered with. Tests build one over the
 * in-memory exporter; `startPipeline` builds the OTLP one.
 */
export interface TelemetrySinks {
  api: Pick<typeof Api, 'trace' | 'context'>;
  tracer: Api.Tracer;
  meter: Api.Meter;
  logger: ApiLogs.Logger | undefined;
}

export interface TelemetryPipeline extends TelemetrySinks {
  /** Deliver what is buffered and stop; settles within `budgetMs` whatever the collector does. */
  shutdown(budgetMs: number): Promise<void>;
}

/**
 * The SDK is loaded here and only here, with `require` from this package's own folder: it is never
 * part of the CLI's bundle and never evaluated while telemetry is off. (A static or bundled import
 * would load it on every start.)
 */
function sdkRequire(): NodeJS.Require {
  const here = createRequire(import.meta.url);
  try {
    // In the bundled CLI, import.meta.url is the bundle's; the package is found by name.
    return createRequire(here.resolve('@airlock/telemetry/package.json'));
  } catch {
    return here;
  }
}

const SCOPE = '@airlock/telemetry';

/** This package's version (for the instrumentation scope and spans). */
export function packageVersion(): string {
  return (sdkRequire()('@airlock/telemetry/package.json') as { version: string }).version;
}

/**
 * Start the OTLP pipeline for `config`: batch span and log processors, a metric reader that
 * exports at shutdown, every exporter's request limited to the flush budget.
 *
 * @example
 * const pipeline = startPipeline(config, '1.0.0');
 * pipeline.tracer.startSpan('execute_tool read').end();
 * await pipeline.shutdown(2000);
 */
export function startPipeline(config: TelemetryConfig, version: string): TelemetryPipeline {
  const req = sdkRequire();
  const api = req('@opentelemetry/api') as typeof Api;
  const apiLogs = req('@opentelemetry/api-logs') as typeof ApiLogs;
  const { BasicTracerProvider, BatchSpanProcessor } = req('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  const { MeterProvider, PeriodicExportingMetricReader } = req('@opentelemetry/sdk-metrics') as typeof SdkMetrics;
  const { LoggerProvider, BatchLogRecordProcessor } = req('@opentelemetry/sdk-logs') as typeof SdkLogs;
  const { resourceFromAttributes } = req('@opentelemetry/resources') as typeof Resources;
  const proto = config.protocol === 'http/protobuf';
  const TraceExporter = proto
    ? (req('@opentelemetry/exporter-trace-otlp-proto') as typeof TraceProto).OTLPTraceExporter
    : (req('@opentelemetry/exporter-trace-otlp-http') as typeof TraceHttp).OTLPTraceExporter;
  const MetricExporter = proto
    ? (req('@opentelemetry/exporter-metrics-otlp-proto') as typeof MetricsProto).OTLPMetricExporter
    : (req('@opentelemetry/exporter-metrics-otlp-http') as typeof MetricsHttp).OTLPMetricExporter;
  const LogExporter = proto
    ? (req('@opentelemetry/exporter-logs-otlp-proto') as typeof LogsProto).OTLPLogExporter
    : (req('@opentelemetry/exporter-logs-otlp-http') as typeof LogsHttp).OTLPLogExporter;

  // A request never outlives the exit budget: a collector that is down costs at most this.
  const timeoutMillis = Math.max(1, config.flushTimeoutMs);
  const common = { headers: config.headers, timeoutMillis };
  const resource = resourceFromAttributes(config.resource);

  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new TraceExporter({ ...common, url: config.urls.traces }), { exportTimeoutMillis: timeoutMillis })],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new MetricExporter({ ...common, url: config.urls.metrics }) as unknown as SdkMetrics.PushMetricExporter,
        // Long-running hosts export every minute; a one-shot command exports at shutdown.
        exportIntervalMillis: 60_000,
        exportTimeoutMillis: timeoutMillis,
      }),
    ],
  });
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [new BatchLogRecordProcessor({ exporter: new LogExporter({ ...common, url: config.urls.logs }), exportTimeoutMillis: timeoutMillis })],
  });

  return {
    api,
    tracer: tracerProvider.getTracer(SCOPE, version),
    meter: meterProvider.getMeter(SCOPE, version),
    logger: loggerProvider.getLogger('airlock.audit', version),
    shutdown: (budgetMs) =>
      settleWithin(
        // Errors from a collector that is down carry nothing useful and must never fail a command.
        Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown(), loggerProvider.shutdown()]).then(() => undefined),
        budgetMs,
      ),
  };
}

/**
 * `work`, or nothing once `ms` have passed. The timer is deliberately not unref'd: with the SDK's
 * own timers unref'd, an unref'd wait could let the process run out of work mid-await and exit
 * without the command's exit code.
 */
export function settleWithin(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work.catch(() => undefined), expiry]).finally(() => clearTimeout(timer));
}

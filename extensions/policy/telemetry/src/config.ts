import Type, { type Static } from 'typebox';
import Value from 'typebox/value';

/**
 * The `telemetry` settings section (user or trusted project layer). Every field is optional; the
 * standard OTEL_* environment variables win over it, as they would for any OpenTelemetry SDK.
 */
export const TelemetrySettings = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Export telemetry. Default: on when an OTLP endpoint is set (here or in OTEL_EXPORTER_OTLP_ENDPOINT).' })),
    endpoint: Type.Optional(Type.String({ minLength: 1, description: 'OTLP/HTTP base URL, e.g. http://127.0.0.1:4318 (/v1/traces, /v1/metrics, /v1/logs are appended).' })),
    protocol: Type.Optional(Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')], { description: 'Default http/protobuf.' })),
    serviceName: Type.Optional(Type.String({ minLength: 1, description: 'service.name of the resource. Default "airlock".' })),
    resourceAttributes: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Extra resource attributes, e.g. {"deployment.environment": "ci"}.' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'HTTP headers sent with every export (e.g. an authorization header for the collector).' })),
    flushTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, description: 'How long a command waits at exit for its telemetry to be delivered. Default 2000.' })),
    exportContent: Type.Optional(Type.Boolean({ description: 'Also export tool arguments and results (secrets redacted first). Default false: no content leaves the machine.' })),
  },
  { additionalProperties: false },
);
export type TelemetrySettings = Static<typeof TelemetrySettings>;

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Everything the SDK pipeline needs, resolved from environment and settings. */
export interface TelemetryConfig {
  protocol: OtlpProtocol;
  /** Full URLs per signal. */
  urls: { traces: string; metrics: string; logs: string };
  headers: Record<string, string>;
  resource: Record<string, string>;
  /** The bounded wait at exit, also each export request's time limit. */
  flushTimeoutMs: number;
  exportContent: boolean;
}

export type ResolvedTelemetry = { on: false; why: string } | { on: true; config: TelemetryConfig };

export const DEFAULT_FLUSH_TIMEOUT_MS = 2000;
const DEFAULT_ENDPOINT = 'http://localhost:4318';

type Env = Readonly<Record<string, string | undefined>>;

/** An environment variable, with the spec's rule that an empty value means unset. */
function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** `k1=v1,k2=v2` (OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS), values percent-decoded. */
export function parseKeyValueList(text: string | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`${what}: "${part.trim()}" is not key=value. Write it as k1=v1,k2=v2.`);
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      throw new Error(`${what}: the value of "${part.slice(0, eq).trim()}" has a broken %-escape. Percent-encode "%" as %25.`);
    }
    out[part.slice(0, eq).trim()] = value;
  }
  return out;
}

function checkUrl(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${what} is not a URL: "${url}". Give the collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`${what} must be an http:// or https:// URL (OTLP/HTTP), got "${url}".`);
  }
  return url;
}

function protocolOf(value: string | undefined, what: string): OtlpProtocol | undefined {
  if (value === undefined) return undefined;
  if (value === 'http/protobuf' || value === 'http/json') return value;
  throw new Error(`${what} is "${value}": Airlock exports over OTLP/HTTP only. Use http/protobuf or http/json (a collector accepts both on port 4318).`);
}

/**
 * Whether telemetry is on, and with what. Pure: reads only `env` and the settings section.
 * Throws an Error that says what to fix for a malformed value (a bad URL, an unknown protocol).
 *
 * @example
 * resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, undefined)
 * // { on: true, config: { urls: { traces: 'http://127.0.0.1:4318/v1/traces', … }, protocol: 'http/protobuf', … } }
 */
export function resolveTelemetry(env: Env, settingsInput: unknown): ResolvedTelemetry {
  if (settingsInput !== undefined && !Value.Check(TelemetrySettings, settingsInput)) {
    const first = [...Value.Errors(TelemetrySettings, settingsInput)][0];
    throw new Error(`settings "telemetry" is not valid: ${first?.instancePath || '(root)'} ${first?.message ?? ''}. See docs/fleet.md.`);
  }
  const settings: TelemetrySettings = (settingsInput as TelemetrySettings | undefined) ?? {};
  if (envValue(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { on: false, why: 'OTEL_SDK_DISABLED=true' };
  if (settings.enabled === false) return { on: false, why: 'telemetry.enabled is false' };

  const envEndpoint = envValue(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const signalUrls = {
    traces: envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
    metrics: envValue(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'),
    logs: envValue(env, 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'),
  };
  const anyEndpoint = envEndpoint ?? settings.endpoint ?? signalUrls.traces ?? signalUrls.metrics ?? signalUrls.logs;
  if (anyEndpoint === undefined && settings.enabled !== true) return { on: false, why: 'no OTLP endpoint is set' };

  const base = checkUrl(envEndpoint ?? settings.endpoint ?? DEFAULT_ENDPOINT, envEndpoint === undefined ? 'telemetry.endpoint' : 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/+$/, '');
  const url = (signal: 'traces' | 'metrics' | 'logs'): string => {
    const own = signalUrls[signal];
    // A per-signal URL is used as written (the spec); the base gets the signal's path.
    return own === undefined ? `${base}/v1/${signal}` : checkUrl(own, `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`);
  };
  const protocol =
    protocolOf(envValue(env, 'OTEL_EXPORTER_OTLP_PROTOCOL'), 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? settings.protocol ?? 'http/protobuf';

  // Lowest to highest: the default, the settings, then the environment (as for any OTel SDK).
  const envService = envValue(env, 'OTEL_SERVICE_NAME');
  const resource: Record<string, string> = {
    'service.name': 'airlock',
    ...settings.resourceAttributes,
    ...(settings.serviceName === undefined ? {} : { 'service.name': settings.serviceName }),
    ...parseKeyValueList(envValue(env, 'OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES'),
    ...(envService === undefined ? {} : { 'service.name': envService }),
  };

  const envTimeout = envValue(env, 'OTEL_EXPORTER_OTLP_TIMEOUT');
  const timeout = envTimeout === undefined ? undefined : Number(envTimeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout >= 0)) {
    throw new Error(`OTEL_EXPORTER_OTLP_TIMEOUT is "${envTimeout}": give milliseconds, e.g. 1500.`);
  }
  // The exit wait never exceeds the configured budget: a collector that is down costs at most this.
  const flushTimeoutMs = Math.min(settings.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS, timeout ?? Number.POSITIVE_INFINITY);

  return {
    on: true,
    config: {
      protocol,
      urls: { traces: url('traces'), metrics: url('metrics'), logs: url('logs') },
      headers: { ...settings.headers, ...parseKeyValueList(envValue(env, 'OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS') },
      resource,
      flushTimeoutMs,
      exportContent: settings.exportContent === true,
    },
  };
}

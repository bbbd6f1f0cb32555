import { describe, expect, it } from 'vitest';
import { resolveTelemetry } from '../src/index.js';

describe('turning telemetry on: the standard OTEL_* variables and the telemetry settings section', () => {
  it('is off without an endpoint, and says why', () => {
    expect(resolveTelemetry({}, undefined)).toEqual({ on: false, why: 'no OTLP endpoint is set' });
    // Empty means unset (the spec).
    expect(resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, {}).on).toBe(false);
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT turns it on, with the signal paths appended and http/protobuf by default', () => {
    const r = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }, undefined);
    expect(r).toMatchObject({
      on: true,
      config: {
        protocol: 'http/protobuf',
        urls: { traces: 'http://127.0.0.1:4318/v1/traces', metrics: 'http://127.0.0.1:4318/v1/metrics', logs: 'http://127.0.0.1:4318/v1/logs' },
        resource: { 'service.name': 'airlock' },
        flushTimeoutMs: 2000,
        exportContent: false,
      },
    });
  });

  it('a per-signal endpoint is used as written', () => {
    const r = resolveTelemetry({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c.example/traces' }, undefined);
    expect(r.on && r.config.urls.traces).toBe('https://c.example/traces');
  });

  it('OTEL_SDK_DISABLED=true wins over everything; other values do not disable', () => {
    expect(resolveTelemetry({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }, { enabled: true }).on).toBe(false);
    expect(resolveTelemetry({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }, undefined).on).toBe(true);
  });

  it('the settings section turns it on; the environment wins over it', () => {
    const settings = { endpoint: 'http://settings:4318', protocol: 'http/json', serviceName: 'from-settings', resourceAttributes: { team: 'sec' }, flushTimeoutMs: 500 };
    const fromSettings = resolveTelemetry({}, settings);
    expect(fromSettings).toMatchObject({ on: true, config: { protocol: 'http/json', urls: { traces: 'http://settings:4318/v1/traces' }, resource: { 'service.name': 'from-settings', team: 'sec' }, flushTimeoutMs: 500 } });
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'from-env', OTEL_RESOURCE_ATTRIBUTES: 'team=blue,host.name=ci%2D7' };
    expect(resolveTelemetry(env, settings)).toMatchObject({
      on: true,
      config: { protocol: 'http/protobuf', urls: { traces: 'http://env:4318/v1/traces' }, resource: { 'service.name': 'from-env', team: 'blue', 'host.name': 'ci-7' } },
    });
    expect(resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }, { enabled: false }).on).toBe(false);
  });

  it('the exit wait is at most the budget, also when OTEL_EXPORTER_OTLP_TIMEOUT is longer', () => {
    const r = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_EXPORTER_OTLP_TIMEOUT: '10000' }, undefined);
    expect(r.on && r.config.flushTimeoutMs).toBe(2000);
    const shorter = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_EXPORTER_OTLP_TIMEOUT: '300' }, undefined);
    expect(shorter.on && shorter.config.flushTimeoutMs).toBe(300);
  });

  it('bad values get a message that says what to write', () => {
    expect(() => resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, undefined)).toThrow(/OTLP\/HTTP only\. Use http\/protobuf or http\/json/);
    expect(() => resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost 4318' }, undefined)).toThrow(/not a URL.*e\.g\. http:\/\/127\.0\.0\.1:4318/);
    expect(() => resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///tmp/x' }, undefined)).toThrow(/must be an http:\/\/ or https:\/\/ URL/);
    expect(() => resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, undefined)).toThrow(/"novalue" is not key=value/);
    expect(() => resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, undefined)).toThrow(/give milliseconds/);
    expect(() => resolveTelemetry({}, { endpont: 'http://x:4318' })).toThrow(/settings "telemetry" is not valid/);
  });
});

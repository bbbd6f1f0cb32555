import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/** Issue 17 through the real binary: a one-shot `airlock call` delivers its spans to an OTLP/HTTP receiver before it exits. */

interface Received {
  path: string;
  type: string;
  body: Buffer;
}

const boxes: ReturnType<typeof sandbox>[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const box of boxes.splice(0)) rmSync(box.base, { recursive: true, force: true });
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A local OTLP/HTTP receiver on 127.0.0.1; `answer: false` accepts requests and never answers. */
async function receiver(answer = true): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      if (answer) res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end(req.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

function machine() {
  const box = sandbox();
  boxes.push(box);
  box.write('project/notes.txt', 'zebra-content-7\n');
  // Nothing from the environment running the tests: each test says what it wants.
  const clean = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_SDK_DISABLED: '', OTEL_EXPORTER_OTLP_PROTOCOL: '', XDG_STATE_HOME: join(box.home, '.local', 'state') };
  return { box, call: (env: Record<string, string>) => box.airlock(['call', 'read', '{"path":"notes.txt"}'], { env: { ...clean, ...env } }) };
}

describe('OpenTelemetry export from airlock call', () => {
  it('http/json: the execute_tool span reaches the receiver before the process exits, with no file content', async () => {
    const r = await receiver();
    const m = machine();
    const run = await m.call({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'ci-agent' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('zebra-content-7');
    const traces = r.received.filter((x) => x.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]!.type).toContain('application/json');
    const body = traces.map((t) => t.body.toString('utf8')).join('\n');
    expect(body).toContain('"execute_tool read"');
    expect(body).toContain('"gen_ai.tool.name"');
    expect(body).toContain('"ci-agent"');
    expect(body).toContain('"airlock.outcome"');
    // Metrics go out at exit too; no argument or result content anywhere by default.
    expect(r.received.some((x) => x.path === '/v1/metrics')).toBe(true);
    for (const x of r.received) expect(x.body.toString('utf8')).not.toContain('zebra-content-7');
  });

  it('http/protobuf (the default protocol) delivers the span too', async () => {
    const r = await receiver();
    const m = machine();
    const run = await m.call({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url });
    expect(run.code).toBe(0);
    const traces = r.received.filter((x) => x.path === '/v1/traces');
    expect(traces[0]?.type).toBe('application/x-protobuf');
    expect(traces.some((t) => t.body.includes('execute_tool read'))).toBe(true);
  });

  it('a receiver that never answers costs the bounded flush wait and no error: the call succeeds and the process ends', async () => {
    const r = await receiver(false);
    const m = machine();
    const run = await m.call({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('zebra-content-7');
    expect(run.stderr).not.toMatch(/error|telemetry|opentelemetry/i);
    expect(r.received.some((x) => x.path === '/v1/traces')).toBe(true);
    // The command's own exit code survives the wait: a call that fails still exits 1.
    const failed = await m.box.airlock(['call', 'read', '{"path":"missing.txt"}'], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url } });
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).toContain('missing.txt');
  });

  it('the telemetry section of the user settings turns it on too, with its service name and resource attributes', async () => {
    const r = await receiver();
    const m = machine();
    mkdirSync(join(m.box.home, '.config', 'airlock'), { recursive: true });
    writeFileSync(
      join(m.box.home, '.config', 'airlock', 'settings.json'),
      JSON.stringify({ telemetry: { endpoint: r.url, protocol: 'http/json', serviceName: 'laptop-7', resourceAttributes: { team: 'sec' } } }),
    );
    const run = await m.call({});
    expect(run.code).toBe(0);
    const body = r.received.filter((x) => x.path === '/v1/traces').map((t) => t.body.toString('utf8')).join('\n');
    expect(body).toContain('"execute_tool read"');
    expect(body).toContain('"laptop-7"');
    expect(body).toContain('"team"');
    // The audit log's records arrive as log records, with their chain fields.
    const logs = r.received.filter((x) => x.path === '/v1/logs').map((t) => t.body.toString('utf8')).join('\n');
    expect(logs).toContain('"airlock.audit.decision"');
    expect(logs).toContain('"airlock.audit.line_sha256"');
  });

  it('OTEL_SDK_DISABLED=true turns it off even with an endpoint', async () => {
    const r = await receiver();
    const m = machine();
    const run = await m.call({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_SDK_DISABLED: 'true' });
    expect(run.code).toBe(0);
    expect(r.received).toEqual([]);
  });

  it('off by default: the OpenTelemetry SDK is never loaded (module cache at exit); on: it is', async () => {
    const m = machine();
    const hook = join(m.box.base, 'modules-at-exit.cjs');
    const out = join(m.box.base, 'modules.txt');
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, Object.keys(require.cache).join('\\n')));\n`);
    const off = await m.call({ NODE_OPTIONS: `--require ${hook}` });
    expect(off.code).toBe(0);
    const offModules = readFileSync(out, 'utf8');
    expect(offModules).toContain('modules-at-exit.cjs');
    expect(offModules).not.toContain('@opentelemetry');

    const r = await receiver();
    const on = await m.call({ NODE_OPTIONS: `--require ${hook}`, OTEL_EXPORTER_OTLP_ENDPOINT: r.url });
    expect(on.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('@opentelemetry/sdk-trace-base');
  });
});

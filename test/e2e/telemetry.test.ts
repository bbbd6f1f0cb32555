import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/** Issue 17 through the real binary: a one-shot `airlock call` or `airlock run` delivers its spans to an OTLP/HTTP receiver before it exits. */

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

  it('airlock run: the run, its turns and its model requests arrive as invoke_agent, turn and chat spans with token usage, the tool call under its turn', async () => {
    const r = await receiver();
    const m = machine();
    m.box.write(
      'project/play.jsonl',
      [
        JSON.stringify({ content: [{ type: 'toolCall', name: 'read', arguments: { path: 'notes.txt' } }], stopReason: 'toolUse', usage: { input: 1200, output: 40, cacheRead: 300 } }),
        JSON.stringify({ content: [{ type: 'text', text: 'The note is about a zebra.' }], usage: { input: 1500, output: 9 } }),
      ].join('\n'),
    );
    const run = await m.box.airlock(['run', '-p', 'what is in notes.txt?', '--model', 'scripted:play.jsonl'], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', XDG_STATE_HOME: join(m.box.home, '.local', 'state') },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The note is about a zebra.');
    type OtlpSpan = { name: string; spanId: string; parentSpanId?: string; attributes: { key: string; value: Record<string, unknown> }[] };
    const spans: OtlpSpan[] = r.received
      .filter((x) => x.path === '/v1/traces')
      .flatMap((t) => (JSON.parse(t.body.toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans)
      .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    const attr = (span: OtlpSpan, key: string): unknown => {
      const value = span.attributes.find((a) => a.key === key)?.value;
      return value === undefined ? undefined : (value['stringValue'] ?? (value['intValue'] === undefined ? undefined : Number(value['intValue'])));
    };
    const named = (name: string) => spans.filter((s) => s.name === name);
    expect(named('invoke_agent airlock')).toHaveLength(1);
    expect(named('turn')).toHaveLength(2);
    const chats = named('chat play.jsonl');
    expect(chats).toHaveLength(2);
    const run1 = named('invoke_agent airlock')[0]!;
    const [tool] = named('execute_tool read');
    const turnOf = (span: OtlpSpan) => spans.find((s) => s.spanId === span.parentSpanId)!;
    // chat and execute_tool under a turn, each turn under the run.
    for (const span of [...chats, tool!]) expect(turnOf(span).name).toBe('turn');
    for (const turn of named('turn')) expect(turn.parentSpanId).toBe(run1.spanId);
    expect(turnOf(tool!).spanId).toBe(turnOf(chats.find((c) => attr(c, 'airlock.tool_calls') === 1)!).spanId);
    expect(chats.map((c) => [attr(c, 'gen_ai.usage.input_tokens'), attr(c, 'gen_ai.usage.output_tokens')]).sort()).toEqual([
      [1500, 40],
      [1500, 9],
    ]);
    expect(attr(run1, 'gen_ai.usage.input_tokens')).toBe(3000);
    expect(attr(run1, 'airlock.agent.status')).toBe('done');
    // Token usage as a metric too; nothing from the conversation or the file leaves the machine.
    expect(r.received.filter((x) => x.path === '/v1/metrics').map((x) => x.body.toString('utf8')).join('')).toContain('gen_ai.client.token.usage');
    for (const x of r.received) expect(x.body.toString('utf8')).not.toMatch(/zebra|notes\.txt\?/);
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

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, closeHosts, machine, open, stdioServer, text, withServers } from './support.js';
import { scaledMs } from '@airlock/kernel/testing';

afterEach(closeHosts);

// The server's own call time limit (its `timeout` setting), for the test that cancels a call.
const CALL_LIMIT_MS = 300;

// Tests about what the policy does with a server's tools keep the server running (eager): a lazy
// server starts twice (to list, then at the first call), and each start is a Node process.
describe('mcp-tools over stdio: a real server process, the whole pipeline', { timeout: scaledMs(20_000) }, () => {
  it('lists the server’s tools as <server>__<tool> and runs a call', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m) }));
    const names = host.selection.enabled.map((e) => e.tool.name).filter((n) => n.startsWith('demo__'));
    expect(names.sort()).toEqual(['demo__add_tool', 'demo__crash', 'demo__echo', 'demo__env', 'demo__image', 'demo__reach', 'demo__read_file', 'demo__slow', 'demo__token', 'demo__write_file']);
    const echo = await call(host, 'demo__echo', { text: 'hi there' });
    expect(echo.outcome).toBe('ok');
    expect(text(echo)).toBe('echo: hi there');
    // Tools that come from a server at run time are not "undeclared" in the manifest's provides.
    expect(host.diagnostics.map((d) => d.code)).not.toContain('AIRLOCK_EXTENSION_PROVIDES_MISMATCH');
  });

  it('validates arguments against the server’s JSON Schema: a bad call is `invalid` and never reaches the server', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager', resources: { path: 'fs.read' } }) }));
    const bad = await call(host, 'demo__read_file', { path: 42 });
    expect(bad.outcome).toBe('invalid');
    expect(text(bad)).toMatch(/path/);
    expect(m.marked('read-called')).toBe(false);
  });

  it('a rule denying <server>__<tool> stops the call before the server sees it', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }, { permissions: { deny: [{ match: 'demo__read_file', reason: 'no reading through MCP' }] } }));
    const denied = await call(host, 'demo__read_file', { path: 'notes.txt' });
    expect(denied.outcome).toBe('denied');
    expect(text(denied)).toContain('no reading through MCP');
    expect(m.marked('read-called')).toBe(false);
    // Another tool of the same server still works.
    expect((await call(host, 'demo__echo', { text: 'x' })).outcome).toBe('ok');
  });

  it('a glob over tool names (demo__*) covers every tool of a server', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }, { permissions: { deny: ['demo__*'] } }));
    expect((await call(host, 'demo__echo', { text: 'x' })).outcome).not.toBe('ok');
    expect((await call(host, 'demo__read_file', { path: 'notes.txt' })).outcome).not.toBe('ok');
    expect(m.marked('read-called')).toBe(false);
  });

  it('with {"resources": {"path": "fs.read"}} the default secrets rule denies reading .env, and an ordinary file is read', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager', resources: { path: 'fs.read' } }) }, { permissions: { allow: ['demo__read_file'] } }));
    const env = await call(host, 'demo__read_file', { path: '.env' });
    expect(env.outcome).toBe('denied');
    expect(text(env)).not.toContain('hunter2');
    expect(m.marked('read-called')).toBe(false);
    const notes = await call(host, 'demo__read_file', { path: 'notes.txt' });
    expect(notes.outcome).toBe('ok');
    expect(text(notes)).toBe('plain notes\n');
  });

  it('an explicit fs.read deny rule covers the MCP tool through the mapping, whatever the spelling', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager', resources: { path: 'fs.read' } }) }, { permissions: { deny: ['fs.read(**/notes.txt)'] } }));
    for (const path of ['notes.txt', './marks/../notes.txt', `${m.project}/notes.txt`]) {
      const r = await call(host, 'demo__read_file', { path });
      expect(r.outcome, path).toBe('denied');
    }
    expect(m.marked('read-called')).toBe(false);
  });

  it('an image result reaches the model as an image block; a token in text is redacted', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m) }));
    const image = await call(host, 'demo__image');
    expect(image.outcome).toBe('ok');
    const block = image.content.find((c) => c.type === 'image');
    expect(block).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from((block as { data: string }).data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const token = await call(host, 'demo__token');
    expect(text(token)).toContain('your token is');
    expect(text(token)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    // Audited like any call: the audit log (default place, under the test's state folder) names both calls.
    await host.close();
    const state = join(m.base, 'state');
    const logs = readdirSync(state, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('audit.jsonl'));
    expect(logs).toHaveLength(1);
    const audit = readFileSync(join(state, logs[0]!), 'utf8');
    expect(audit).toContain('"demo__image"');
    expect(audit).toContain('"demo__token"');
    expect(audit).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('the server gets a short environment, never Airlock’s own', async () => {
    const m = machine();
    process.env.AIRLOCK_TEST_LEAK = 'leak';
    try {
      const host = await open(m, withServers({ demo: stdioServer(m) }));
      const env = text(await call(host, 'demo__env')).split(',');
      expect(env).toContain('MARKER_DIR');
      expect(env).not.toContain('AIRLOCK_TEST_LEAK');
    } finally {
      delete process.env.AIRLOCK_TEST_LEAK;
    }
  });

  it('a server that crashes mid-call gives an error result at once, and starts again at the next call', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }));
    const started = Date.now();
    const crashed = await call(host, 'demo__crash');
    expect(Date.now() - started).toBeLessThan(scaledMs(5_000));
    expect(crashed.outcome).toBe('error');
    expect(text(crashed)).toMatch(/closed the connection during the call/);
    expect(text(crashed)).toContain('about to crash');
    const again = await call(host, 'demo__echo', { text: 'back' });
    expect(text(again)).toBe('echo: back');
    expect(m.starts()).toBe(2);
  });

  it('the call time limit cancels the call on the server (notifications/cancelled) and says so', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { timeout: CALL_LIMIT_MS }) }));
    const slow = await call(host, 'demo__slow');
    expect(slow.outcome).toBe('error');
    expect(text(slow)).toMatch(/did not answer within 300 ms; the call was cancelled on the server/);
    await expect.poll(() => m.marked('cancelled'), { timeout: scaledMs(3_000) }).toBe(true);
  });

  it('the kernel’s own time limit for a call reaches the server as a cancellation too', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }));
    const slow = await call(host, 'demo__slow', {}, { timeoutMs: 300 });
    expect(slow.outcome).toBe('timeout');
    await expect.poll(() => m.marked('cancelled'), { timeout: scaledMs(3_000) }).toBe(true);
  });

  it('aborting a call reaches the server as a cancellation', async () => {
    const m = machine();
    // Eager: the abort must land while the server is working, not while it is starting.
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed Ctrl-C')), 300);
    const slow = await call(host, 'demo__slow', {}, { signal: controller.signal });
    expect(slow.outcome).toBe('aborted');
    await expect.poll(() => m.marked('cancelled'), { timeout: scaledMs(3_000) }).toBe(true);
  });

  it('lazy (the default): started at load to list, stopped, started again at the first call; eager keeps running', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m) }));
    expect(m.starts()).toBe(1);
    await expect.poll(() => m.stops(), { timeout: scaledMs(3_000) }).toBe(1);
    await call(host, 'demo__echo', { text: 'a' });
    await call(host, 'demo__echo', { text: 'b' });
    expect(m.starts()).toBe(2);

    const e = machine();
    const eager = await open(e, withServers({ demo: stdioServer(e, { startup: 'eager' }) }));
    await call(eager, 'demo__echo', { text: 'a' });
    expect(e.starts()).toBe(1);
  });

  it('a server that fails to start is an error naming it; its tools are missing and the others work', async () => {
    const m = machine();
    const lines: string[] = [];
    const host = await open(m, withServers({ broken: { command: '/nonexistent/mcp-server' }, demo: stdioServer(m) }), { lines });
    expect(host.selection.enabled.some((e) => e.tool.name.startsWith('broken__'))).toBe(false);
    expect(lines.join('\n')).toMatch(/MCP server "broken" did not start: .*Its tools are not registered/);
    expect(host.blocked).toBeUndefined();
    expect(text(await call(host, 'demo__echo', { text: 'ok' }))).toBe('echo: ok');
    // demo's read_file and write_file take a path and have no mapping: the log says how to have them judged by file,
    // and that write_file (not marked read-only) asks until it is mapped or named by a rule.
    expect(lines.join('\n')).toContain('MCP server "demo": read_file (path), write_file (path) take arguments that look like paths, but no mapping names them');
    expect(lines.join('\n')).toMatch(/MCP server "demo": add_tool, write_file have no resources mapping and are not marked read-only: their calls ask \(default:unknown-effects\)/);
  });

  it('a server that never answers is given up after its startupTimeout, without holding the host’s setup', async () => {
    const m = machine();
    const lines: string[] = [];
    const started = Date.now();
    const host = await open(m, withServers({ mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], startupTimeout: 700 }, demo: stdioServer(m) }), { lines });
    expect(Date.now() - started).toBeLessThan(scaledMs(8_000));
    expect(lines.join('\n')).toMatch(/MCP server "mute" did not start: .*within 700 ms/);
    expect(host.blocked).toBeUndefined();
    expect(text(await call(host, 'demo__echo', { text: 'still here' }))).toBe('echo: still here');
  });

  it('tools/list_changed adds the new tool to the registry, and the policy applies to it', async () => {
    const m = machine();
    const lines: string[] = [];
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }, { permissions: { deny: ['demo__late'], allow: ['demo__add_tool'] } }), { lines });
    expect(host.kernel.registry.has('demo__late')).toBe(false);
    expect(text(await call(host, 'demo__add_tool'))).toBe('added');
    await expect.poll(() => host.kernel.registry.has('demo__late'), { timeout: scaledMs(3_000) }).toBe(true);
    expect(lines.join('\n')).toContain('tool set "demo": added demo__late');
    // The deny rule names the new tool: it is left out of the enabled set and refused.
    const late = await call(host, 'demo__late', { n: 2 });
    expect(late.outcome).not.toBe('ok');
    expect(text(late)).not.toContain('late 4');
  });

  it('a tool added by tools/list_changed runs, validated by its schema, when no rule stops it', async () => {
    const m = machine();
    // add_tool is not marked read-only and no mapping says what it does: a rule naming it lets it run.
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }, { permissions: { allow: ['demo__add_tool'] } }));
    await call(host, 'demo__add_tool');
    await expect.poll(() => host.selection.has('demo__late'), { timeout: scaledMs(3_000) }).toBe(true);
    expect(text(await call(host, 'demo__late', { n: 21 }))).toBe('late 42');
    expect((await call(host, 'demo__late', { n: 'x' })).outcome).toBe('invalid');
  });

  it('the servers close when the host closes', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m, { startup: 'eager' }) }));
    expect(m.starts()).toBe(1);
    expect(m.stops()).toBe(0);
    await host.close();
    await expect.poll(() => m.stops(), { timeout: scaledMs(5_000) }).toBe(1);
  });
});

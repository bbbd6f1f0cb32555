import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { connect, textOf } from './mcp-harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 24 §3: an upstream MCP tool whose inputSchema has "pattern": "^(a+)+$" froze
 * `airlock call up__redos '{"q":"aaaa…a!"}'` (no answer in 20 s, --timeout-ms and SIGTERM
 * ignored): the kernel checked the third party's pattern with JavaScript's backtracking engine on
 * the main thread. Now every such pattern runs on RE2 in linear time, and one RE2 cannot run
 * keeps its tool out, with the tool, the schema path and what to do. No assertion is timed: each
 * test's timeout is the bound (the call used to take longer than the age of the universe).
 */

const SERVER = join(ROOT, 'extensions/tools/mcp-tools/test/fixtures/raw-schema-server.mjs');
const TOOLS = [
  { name: 'redos', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } }, required: ['q'] } },
  { name: 'keys', inputSchema: { type: 'object', patternProperties: { '^(\\w+\\s?)*$': { type: 'number' } }, additionalProperties: false } },
  { name: 'look', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(?!admin)' } } } },
];

function machine() {
  const s = sandbox();
  s.write('home/.config/airlock/settings.json', {
    // The server marks nothing read-only, so its tools ask until a rule names them.
    permissions: { allow: ['up__redos', 'up__keys'] },
    extensions: [{ name: '@airlock/mcp-tools', options: { mcpServers: { up: { command: process.execPath, args: [SERVER], env: { TOOLS_JSON: JSON.stringify(TOOLS) }, startup: 'eager' } } } }],
  });
  return s;
}

const EVIL = `${'a'.repeat(40)}!`;

describe('a third party\'s schema pattern cannot stall the host', () => {
  it('airlock call: the trial\'s evil argument is an invalid-arguments answer at once, a matching one reaches the server', async () => {
    const s = machine();
    const bad = await s.airlock(['call', 'up__redos', JSON.stringify({ q: EVIL }), '--timeout-ms', '3000']);
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toContain('q: expected a string matching /^(a+)+$/');
    expect(bad.stderr).toContain('up__redos (call_1) → invalid arguments');
    // A key of 50,000 characters against a patternProperties pattern that backtracks too.
    const keys = await s.airlock(['call', 'up__keys', JSON.stringify({ [`${'word '.repeat(10_000)}!`]: 1 })]);
    expect(keys.code).toBe(1);
    expect(keys.stdout).toContain('Invalid arguments for tool "up__keys"');
    const good = await s.airlock(['call', 'up__redos', JSON.stringify({ q: 'a'.repeat(40) })]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain(`received {"q":"${'a'.repeat(40)}"}`);
  }, scaledMs(60_000));

  it('airlock call: a tool whose pattern RE2 cannot run is not offered, and the warning names the tool, the schema path and what to do', async () => {
    const s = machine();
    const r = await s.airlock(['call', 'up__look', '{"q":"x"}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('MCP server "up": tool "look" is not registered: its input schema has a pattern Airlock cannot check safely, at #/properties/q/pattern');
    expect(r.stderr).toContain('it uses a lookahead "(?!"');
    expect(r.stderr).toContain("The server's author can rewrite the pattern");
  }, scaledMs(60_000));

  it('airlock mcp: the evil call answers, the next call is served, and SIGTERM still ends the server', async () => {
    const s = machine();
    const { client, pid } = await connect(s);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('up__redos');
    expect(names).not.toContain('up__look');
    const bad = await client.callTool({ name: 'up__redos', arguments: { q: EVIL } });
    expect(bad.isError).toBe(true);
    expect(bad._meta).toEqual({ 'airlock/outcome': 'invalid' });
    expect(textOf(bad)).toContain('q: expected a string matching /^(a+)+$/');
    const good = await client.callTool({ name: 'up__redos', arguments: { q: 'aaa' } });
    expect(textOf(good)).toBe('received {"q":"aaa"}');
    const server = pid();
    expect(server).not.toBeNull();
    const exited = new Promise<void>((done) => {
      const poll = setInterval(() => {
        try {
          process.kill(server!, 0);
        } catch {
          clearInterval(poll);
          done();
        }
      }, 50);
    });
    process.kill(server!, 'SIGTERM');
    await exited;
  }, scaledMs(60_000));
});

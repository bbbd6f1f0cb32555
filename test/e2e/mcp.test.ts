import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CallToolResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { pidsRunning } from '../../extensions/tools/bash/test/support/processes.js';
import { brokenPolicyMachine, extensionPackage, ROOT, sandbox } from './harness.js';
import { connect, textOf } from './mcp-harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** Issue 14: `airlock mcp` driven by the MCP SDK's own client over stdio, spawning the real binary. */

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

describe('airlock mcp: tools/list', () => {
  it('lists the enabled tools with their descriptions, JSON Schemas and annotations', async () => {
    const s = sandbox();
    const { client } = await connect(s);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(['bash', 'bash_jobs', 'edit', 'find', 'grep', 'ls', 'read', 'write']);
    const read = byName.get('read')!;
    expect(read.description).toMatch(/^Read a file/);
    expect(read.inputSchema).toMatchObject({ type: 'object', required: ['path'], properties: { path: { type: 'string' } } });
    for (const name of ['read', 'grep', 'find', 'ls']) expect(byName.get(name)!.annotations).toEqual({ readOnlyHint: true });
    for (const name of ['write', 'edit', 'bash']) expect(byName.get(name)!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  });

  it('lists only what the global flags enable (--tools)', async () => {
    const s = sandbox();
    const { client } = await connect(s, { args: ['--tools', 'read,ls'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read', 'ls']);
    const bash = await client.callTool({ name: 'bash', arguments: { command: 'echo hi' } });
    expect(bash.isError).toBe(true);
    expect(textOf(bash)).toContain('not available in this session');
  });
});

describe('airlock mcp: tools/call through the kernel', () => {
  it('a call reads the file; the result is the text the model would see', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'first line\nsecond line\n');
    const { client } = await connect(s);
    const result = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } });
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: 'first line\nsecond line\n' }]);
    expect(result._meta).toEqual({ 'airlock/outcome': 'ok' });
  });

  it('an image comes back as an MCP image block (base64 and its MIME type), next to its text', async () => {
    const s = sandbox();
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    writeFileSync(join(s.project, 'dot.png'), Buffer.from(png, 'base64'));
    const { client } = await connect(s);
    const result = await client.callTool({ name: 'read', arguments: { path: 'dot.png' } });
    expect(result.isError, textOf(result)).toBe(false);
    const blocks = result.content as { type: string; data?: string; mimeType?: string }[];
    const image = blocks.find((b) => b.type === 'image');
    expect(image?.mimeType).toBe('image/png');
    expect(Buffer.from(image!.data!, 'base64').equals(Buffer.from(png, 'base64'))).toBe(true);
  });

  it('a denied call (.env) is an error result with the policy text, never the secret, and the audit log has it', async () => {
    const s = sandbox();
    s.write('project/.env', 'API_KEY=k9Zq2Wp7Lm4Xv8Rt\n');
    const { client } = await connect(s);
    const result = await client.callTool({ name: 'read', arguments: { path: '.env' } });
    expect(result.isError).toBe(true);
    expect(result._meta).toEqual({ 'airlock/outcome': 'denied' });
    expect(textOf(result)).toContain('Denied by policy');
    expect(textOf(result)).toContain('secret file');
    expect(JSON.stringify(result)).not.toContain('k9Zq2Wp7Lm4Xv8Rt');
    const bash = await client.callTool({ name: 'bash', arguments: { command: 'cat .env' } });
    expect(bash.isError).toBe(true);
    expect(JSON.stringify(bash)).not.toContain('k9Zq2Wp7Lm4Xv8Rt');
    // Through the same audit log as every other door.
    const auditRoot = join(s.home, '.local', 'state', 'airlock', 'audit');
    let log = '';
    for (const end = Date.now() + 3000; !log.includes('"bash"') && Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      log = existsSync(auditRoot) ? readdirSync(auditRoot).map((d) => readFileSync(join(auditRoot, d, 'audit.jsonl'), 'utf8')).join('') : '';
    }
    const records = log.trim().split('\n').map((line) => JSON.parse(line) as { type?: string; tool?: string; outcome?: string });
    const results = records.filter((r) => r.type === 'result');
    expect(results.map((r) => [r.tool, r.outcome])).toEqual([['read', 'denied'], ['bash', 'denied']]);
  });

  it('an invalid call and an unknown tool are error results naming the problem, not protocol errors', async () => {
    const s = sandbox();
    const { client } = await connect(s);
    const invalid = await client.callTool({ name: 'read', arguments: { limit: 'ten' } });
    expect(invalid.isError).toBe(true);
    expect(invalid._meta).toEqual({ 'airlock/outcome': 'invalid' });
    expect(textOf(invalid)).toContain('path');
    expect(textOf(invalid)).toContain('limit');
    const unknown = await client.callTool({ name: 'reed', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(unknown._meta).toEqual({ 'airlock/outcome': 'not_found' });
    expect(textOf(unknown)).toContain('Did you mean: read?');
    // The server is still there.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('a write lands on disk, and an edit after it', async () => {
    const s = sandbox();
    const { client } = await connect(s);
    const write = await client.callTool({ name: 'write', arguments: { path: 'out/a.txt', content: 'alpha\n' } });
    expect(write.isError, textOf(write)).toBe(false);
    const edit = await client.callTool({ name: 'edit', arguments: { path: 'out/a.txt', edits: [{ oldText: 'alpha', newText: 'beta' }] } });
    expect(edit.isError, textOf(edit)).toBe(false);
    const read = await client.callTool({ name: 'read', arguments: { path: 'out/a.txt' } });
    expect(read.content).toEqual([{ type: 'text', text: 'beta\n' }]);
  });

  it('an MCP server behind mcp-tools that adds a tool: the client is told (tools/list_changed), lists it and calls it', async () => {
    const s = sandbox();
    const server = join(ROOT, 'extensions/tools/mcp-tools/test/fixtures/mcp-server.mjs');
    s.write('home/.config/airlock/settings.json', {
      // add_tool changes the server and is not marked read-only: it would ask (unknown effects) without a rule naming it.
      permissions: { allow: ['demo__add_tool'] },
      extensions: [{ name: '@airlock/mcp-tools', options: { mcpServers: { demo: { command: process.execPath, args: [server], startup: 'eager' } } } }],
    });
    const { client } = await connect(s);
    let told = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told++);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('demo__late');
    expect(textOf(await client.callTool({ name: 'demo__add_tool', arguments: {} }))).toBe('added');
    await expect.poll(() => told, { timeout: scaledMs(5_000) }).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('demo__late');
    expect(textOf(await client.callTool({ name: 'demo__late', arguments: { n: 21 } }))).toBe('late 42');
  });

  it("an extension writing to stdout cannot break the protocol: its lines go to stderr", async () => {
    const s = sandbox();
    const noisy = extensionPackage(s, 'exts/noisy', {
      name: 'noisy',
      source: `import type { Extension } from '@airlock/kernel';
import Type from 'typebox';
export default {
  name: 'noisy',
  setup(api) {
    console.log('noise from setup');
    api.registerTool({
      name: 'noisy', label: 'Noisy', description: 'Prints to stdout, then answers.', parameters: Type.Object({}),
      async execute() {
        console.log('noise from execute');
        process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"forged":true}}\\n');
        return { content: [{ type: 'text', text: 'answered' }] };
      },
    });
  },
} satisfies Extension;
`,
    });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: noisy }] });
    const { client, stderr } = await connect(s);
    const result = await client.callTool({ name: 'noisy', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'answered' }]);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('noisy');
    expect(stderr()).toContain('noise from setup');
    expect(stderr()).toContain('noise from execute');
    expect(stderr()).toContain('"forged":true');
  });

  it('a host blocked by a policy extension that failed to load refuses every call', async () => {
    const s = sandbox();
    s.write('project/a.txt', 'must not be read\n');
    brokenPolicyMachine(s);
    const { client, stderr } = await connect(s);
    expect(client.getInstructions()).toContain('Every call is refused');
    for (const [name, args] of [['read', { path: 'a.txt' }], ['hello', { name: 'x' }], ['bash', { command: 'touch made' }]] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(result._meta).toEqual({ 'airlock/outcome': 'denied' });
      expect(textOf(result)).toContain('"guard"');
      expect(textOf(result)).not.toContain('must not be read');
    }
    expect(existsSync(join(s.project, 'made'))).toBe(false);
    expect(stderr()).toContain('rules file is corrupt');
  });
});

describe('airlock mcp: long calls', () => {
  it('progress notifications carry bash output while it runs, then the result', async () => {
    const s = sandbox();
    const { client } = await connect(s);
    const seen: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'bash', arguments: { command: 'for i in 1 2 3 4 5 6; do echo "step $i"; sleep 0.3; done' } },
      CallToolResultSchema,
      { onprogress: (p) => void seen.push(p), timeout: 30_000 },
    );
    expect(result.isError, textOf(result)).toBe(false);
    expect(textOf(result)).toContain('step 6');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.some((p) => p.message?.includes('step 1'))).toBe(true);
    // Each notification's progress is larger than the one before (the spec's rule).
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    // Output only grows while the command runs: no notification shows more than the result.
    expect(seen.at(-1)!.message).not.toContain('step 6\nstep');
  });

  it('progress messages are redacted like the result: a secret of the environment never reaches the client', async () => {
    const s = sandbox();
    const secret = 'q7Vx2LmP9rT4wZ8kB3nD';
    const { client } = await connect(s, { env: { DEPLOY_TOKEN: secret } });
    const seen: string[] = [];
    const result = await client.callTool(
      { name: 'bash', arguments: { command: `printf '%s\\n' ${secret}; sleep 0.8; echo done` } },
      CallToolResultSchema,
      { onprogress: (p) => void seen.push(p.message ?? ''), timeout: 30_000 },
    );
    expect(textOf(result)).toContain('[REDACTED:env:DEPLOY_TOKEN#1]');
    expect(seen.some((m) => m.includes('[REDACTED:env:DEPLOY_TOKEN'))).toBe(true);
    expect(JSON.stringify(seen) + JSON.stringify(result)).not.toContain(secret);
  });

  it('cancelling a call (notifications/cancelled) ends its process at once, and the server keeps answering', async () => {
    const s = sandbox();
    const { client } = await connect(s);
    // A duration no other process uses, to find this sleep among the host's processes.
    const argv = ['sleep', `31.${process.pid}`];
    const controller = new AbortController();
    const pending = client.callTool({ name: 'bash', arguments: { command: `exec ${argv.join(' ')}` } }, CallToolResultSchema, { signal: controller.signal, timeout: 60_000 });
    const rejected = expect(pending).rejects.toThrow();
    const deadline = Date.now() + 10_000;
    while (pidsRunning(argv).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const started = pidsRunning(argv);
    leftovers.push(...started);
    expect(started.length).toBe(1);
    const cancelledAt = Date.now();
    controller.abort('the person pressed Esc');
    await rejected;
    while (pidsRunning(argv).length > 0 && Date.now() - cancelledAt < scaledMs(5000)) await new Promise((r) => setTimeout(r, 25));
    expect(pidsRunning(argv)).toEqual([]);
    expect(Date.now() - cancelledAt).toBeLessThan(scaledMs(5000));
    const after = await client.callTool({ name: 'bash', arguments: { command: 'echo still here' } });
    expect(textOf(after)).toContain('still here');
  }, scaledMs(30_000));
});

describe('airlock mcp: approval', () => {
  /** An explicit ask rule: the approval extension asks about every `touch` command. */
  const askForTouch = (s: ReturnType<typeof sandbox>) => s.write('home/.config/airlock/settings.json', { permissions: { ask: ['bash(touch *)'] } });

  it('asks the person through elicitation; the id "once" runs the command', async () => {
    const s = sandbox();
    askForTouch(s);
    const asked: string[] = [];
    const { client } = await connect(s, {
      elicit: (request) => {
        asked.push(request.params.message);
        const schema = (request.params as unknown as { requestedSchema: { properties: { choice: { enum: string[]; enumNames: string[] } } } }).requestedSchema;
        // The values are the ids; the person reads the labels.
        expect(schema.properties.choice.enum).toContain('once');
        expect(schema.properties.choice.enumNames).toContain('Allow once');
        return { action: 'accept', content: { choice: 'once' } };
      },
    });
    const result = await client.callTool({ name: 'bash', arguments: { command: 'touch approved.txt' } });
    expect(result.isError, textOf(result)).toBe(false);
    expect(existsSync(join(s.project, 'approved.txt'))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Allow bash?');
    expect(asked[0]).toContain('touch approved.txt');
  });

  it('a declined elicitation is a denial: nothing runs', async () => {
    const s = sandbox();
    askForTouch(s);
    let asked = 0;
    const { client } = await connect(s, { elicit: () => (asked++, { action: 'decline' }) });
    const result = await client.callTool({ name: 'bash', arguments: { command: 'touch declined.txt' } });
    expect(asked).toBe(1);
    expect(result.isError).toBe(true);
    expect(result._meta).toEqual({ 'airlock/outcome': 'denied' });
    expect(textOf(result)).toContain('the person declined the dialog');
    expect(textOf(result)).not.toContain('no answer within');
    expect(existsSync(join(s.project, 'declined.txt'))).toBe(false);
  });

  it('an answer that is not one of the choices is a denial', async () => {
    const s = sandbox();
    askForTouch(s);
    const { client } = await connect(s, { elicit: () => ({ action: 'accept', content: { choice: 'Allow forever and ever' } }) });
    const result = await client.callTool({ name: 'bash', arguments: { command: 'touch forged.txt' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('the answer was not one of the choices, so it counts as no');
    expect(textOf(result)).not.toContain('no answer within');
    expect(existsSync(join(s.project, 'forged.txt'))).toBe(false);
  });

  it('a client without elicitation gets the non-interactive rule: denied, naming the rule', async () => {
    const s = sandbox();
    askForTouch(s);
    const { client } = await connect(s);
    const result = await client.callTool({ name: 'bash', arguments: { command: 'touch unasked.txt' } });
    expect(result.isError).toBe(true);
    expect(result._meta).toEqual({ 'airlock/outcome': 'denied' });
    expect(textOf(result)).toContain('nobody can be asked here');
    expect(textOf(result)).toContain('bash(touch *)');
    expect(existsSync(join(s.project, 'unasked.txt'))).toBe(false);
  });
});

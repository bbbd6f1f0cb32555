import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineTool } from '@airlock/contract';
import { createAirlock, createAskUI, defineExtension, scriptedProvider, textOf as assistantText, type Airlock, type AskRequest, type ModelProvider } from '../src/index.js';
import { guard, noSecrets, project, textOf } from './support/project.js';
import { scaledMs } from '@airlock/kernel/testing';

const open: Airlock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});
async function airlockFor(options: Parameters<typeof createAirlock>[0]): Promise<Airlock> {
  const airlock = await createAirlock(options);
  open.push(airlock);
  return airlock;
}

const helloTool = resolve(fileURLToPath(new URL('../../../examples/hello-tool', import.meta.url)));

describe('createAirlock', () => {
  it('runs calls through the pipeline, honouring an extension module passed in code', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base, extensions: [guard] });
    expect(airlock.blocked).toBeUndefined();
    expect(airlock.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read', 'write', 'bash']));
    const denied = await airlock.execute({ id: 'c1', name: 'read', arguments: { path: 'secret.txt' } });
    expect(denied.outcome).toBe('denied');
    expect(textOf(denied)).not.toContain('TOP-SECRET-VALUE');
    const { messages } = await airlock.batch([
      { id: 'c2', name: 'read', arguments: { path: 'notes.txt' } },
      { id: 'c3', name: 'write', arguments: { path: 'secret-copy.txt', content: 'x' } },
    ]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'denied']);
    expect(textOf(messages[0]!)).toContain('hello notes');
    expect(existsSync(join(p.dir, 'secret-copy.txt'))).toBe(false);
  });

  it('dry-runs a call with preflight: the decision, and nothing written', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base, extensions: [noSecrets] });
    const report = await airlock.preflight({ id: 'p1', name: 'write', arguments: { path: 'secret.txt', content: 'gone' } });
    expect(report.effect).toBe('deny');
    expect(report.reason).toContain('secrets stay out of reach');
    const allowed = await airlock.preflight({ id: 'p2', name: 'write', arguments: { path: 'new.txt', content: 'x' } });
    expect(allowed.effect).not.toBe('deny');
    expect(existsSync(join(p.dir, 'new.txt'))).toBe(false);
  });

  it('loads an extension package named in code (a path), and settings in code narrow the tools', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base, extensions: [helloTool], settings: { tools: { allow: ['hello', 'read'] } } });
    expect(airlock.tools.map((t) => t.name).sort()).toEqual(['hello', 'read']);
    const result = await airlock.execute({ id: 'h1', name: 'hello', arguments: { name: 'Ada' } });
    expect(result.outcome).toBe('ok');
    expect(textOf(result)).toContain('Ada');
    expect((await airlock.execute({ id: 'b1', name: 'bash', arguments: { command: 'echo hi' } })).outcome).toBe('not_found');
  });

  it('fails closed when a policy module passed in code cannot set up', async () => {
    const p = project();
    const broken = defineExtension({ name: 'broken-guard', setup: () => Promise.reject(new Error('no policy server')) });
    const airlock = await airlockFor({ ...p.base, extensions: [{ extension: broken, provides: { hooks: ['tool_call:authorize'] } }] });
    expect(airlock.blocked?.extension).toBe('broken-guard');
    const result = await airlock.execute({ id: 'c1', name: 'write', arguments: { path: 'out.txt', content: 'x' } });
    expect(result.outcome).toBe('denied');
    expect(existsSync(join(p.dir, 'out.txt'))).toBe(false);
  });

  it('fails closed when a package named in code is not installed, saying where it was named', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base, extensions: ['@acme/not-installed-guard'] });
    expect(airlock.blocked?.extensions).toEqual(['@acme/not-installed-guard']);
    expect(airlock.blocked?.fix).toContain('passes in code');
    expect((await airlock.execute({ id: 'c1', name: 'read', arguments: { path: 'notes.txt' } })).outcome).toBe('denied');
  });

  it('refuses what is not an extension, saying what to pass', async () => {
    const p = project();
    await expect(createAirlock({ ...p.base, extensions: [(() => ({})) as never] })).rejects.toThrow(/factory function is not an extension/);
    await expect(createAirlock({ ...p.base, extensions: [''] })).rejects.toThrow(/empty string/);
    await expect(createAirlock({} as never)).rejects.toThrow(/needs \{ cwd \}/);
  });

  it('builds an agent on its tools: the model reads a file, is refused the secret, and answers', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base, extensions: [guard] });
    const provider = scriptedProvider([
      { content: [
        { type: 'toolCall', name: 'read', arguments: { path: 'notes.txt' } },
        { type: 'toolCall', name: 'read', arguments: { path: 'secret.txt' } },
      ] },
      'The notes say hello; the secret is off limits.',
    ]);
    const agent = airlock.agent({ provider, model: 'demo' });
    const result = await agent.prompt('Read both files');
    expect(result.status).toBe('done');
    expect(assistantText(result.finalMessage!)).toBe('The notes say hello; the secret is off limits.');
    const toolResults = result.messages.filter((m) => m.role === 'toolResult');
    expect(toolResults.map((m) => m.outcome)).toEqual(['ok', 'denied']);
    expect(JSON.stringify(result.messages)).not.toContain('TOP-SECRET-VALUE');
    // The system prompt lists exactly the enabled tools.
    expect(airlock.systemPrompt()).toContain('- read:');
  });

  it('an agent follows the enabled set between requests: a tool added mid-run is offered and listed in the system prompt of the next request', async () => {
    const p = project();
    const installer = defineExtension({
      name: 'plugins',
      setup(api) {
        const set = api.toolSet!('plugins');
        const fresh = defineTool({ name: 'fresh', label: 'Fresh', description: 'Says it is new.', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: 'brand new' }] }) });
        api.registerTool(
          defineTool({
            name: 'install',
            label: 'Install',
            description: 'Adds the fresh tool.',
            parameters: Type.Object({}),
            execute: async () => {
              set.replace([fresh]);
              return { content: [{ type: 'text', text: 'installed' }] };
            },
          }),
        );
      },
    });
    const airlock = await airlockFor({ ...p.base, extensions: [installer] });
    expect(airlock.tools.map((t) => t.name)).not.toContain('fresh');
    const inner = scriptedProvider([{ content: [{ type: 'toolCall', name: 'install', arguments: {} }] }, { content: [{ type: 'toolCall', name: 'fresh', arguments: {} }] }, 'Done.']);
    const seen: { tools: string[]; prompt: string }[] = [];
    const provider: ModelProvider = { id: inner.id, stream: (request, signal) => (seen.push({ tools: request.tools.map((t) => t.name), prompt: request.systemPrompt }), inner.stream(request, signal)) };
    const result = await airlock.agent({ provider, model: 'demo' }).prompt('install it and use it');
    expect(result.status).toBe('done');
    expect(result.messages.filter((m) => m.role === 'toolResult').map((m) => textOf(m as never))).toEqual(['installed', 'brand new']);
    expect(seen.map((s) => s.tools.includes('fresh'))).toEqual([false, true, true]);
    expect(seen[0]!.prompt).not.toContain('- fresh:');
    expect(seen[1]!.prompt).toContain('- fresh: Says it is new.');
    expect(airlock.tools.map((t) => t.name)).toContain('fresh');
  });

  it('close() aborts a running agent and is what Symbol.asyncDispose does', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base });
    // A command that would take a minute; the abort must end it long before.
    const provider = scriptedProvider([{ content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'sleep 60' } }] }, 'never reached']);
    const agent = airlock.agent({ provider, model: 'demo' });
    const started = Date.now();
    const run = agent.prompt('wait');
    await new Promise((r) => setTimeout(r, 300));
    await airlock[Symbol.asyncDispose]();
    const result = await run;
    expect(result.status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(scaledMs(15_000, { below: 60_000 }));
    expect(() => airlock.agent({ provider, model: 'demo' })).toThrow(/closed/);
  });
});

describe("createAirlock: the program's own UI answers asks by choice id", () => {
  it('approves one call and denies another, each by id, and sees which call each ask is about', async () => {
    const p = project();
    const asked: AskRequest[] = [];
    const ui = createAskUI({
      interactive: true,
      show: async (request) => {
        asked.push(request);
        return { id: request.title.includes('notes.txt') ? 'once' : 'deny' };
      },
    });
    const airlock = await airlockFor({ ...p.base, interactive: true, trust: false, ui, settings: { permissions: { ask: ['read'] } } });
    const allowed = await airlock.execute({ id: 'a1', name: 'read', arguments: { path: 'notes.txt' } });
    expect(allowed.outcome).toBe('ok');
    expect(textOf(allowed)).toContain('hello notes');
    const denied = await airlock.execute({ id: 'a2', name: 'read', arguments: { path: 'secret.txt' } });
    expect(denied.outcome).toBe('denied');
    expect(textOf(denied)).toContain('Denied by the user.');
    expect(textOf(denied)).not.toContain('TOP-SECRET-VALUE');
    expect(asked.map((request) => request.toolCallId)).toEqual(['a1', 'a2']);
    // An explicit ask rule: allow once and the denies, by id.
    expect(asked[0]!.choices!.map((choice) => choice.id)).toEqual(['once', 'deny', 'deny-with-reason']);
  });

  it('an answer the ask did not offer is a denial that names the ids, never an allow', async () => {
    const p = project();
    const ui = createAskUI({ interactive: true, show: async () => ({ id: 'session' }) });
    const airlock = await airlockFor({ ...p.base, interactive: true, trust: false, ui, settings: { permissions: { ask: ['read'] } } });
    const result = await airlock.execute({ id: 'b1', name: 'read', arguments: { path: 'notes.txt' } });
    expect(result.outcome).toBe('denied');
    expect(textOf(result)).toContain('got "session"; the choices are "once", "deny", "deny-with-reason"');
  });
});

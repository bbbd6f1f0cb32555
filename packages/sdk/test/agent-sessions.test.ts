import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { openaiSSE, openaiTextChunks, startModelServer, type ModelServer } from '../../agent/test/support/model-server.js';
import { createAirlock, defineExtension, defineTool, listSessions, loadTranscript, scriptedProvider, textOf, Type, type Airlock } from '../src/index.js';
import { project } from './support/project.js';

/** Issue 28 §2: an SDK agent records its session as `airlock run` does, and is set up by `model` + `baseUrl`. */

const open: Airlock[] = [];
const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function airlockFor(options: Parameters<typeof createAirlock>[0]): Promise<Airlock> {
  const airlock = await createAirlock(options);
  open.push(airlock);
  return airlock;
}

// A tool written with nothing but @airlock/sdk: Type and defineTool come from it.
const stamp = defineExtension({
  name: 'stamper',
  setup(api) {
    api.registerTool(
      defineTool({
        name: 'stamp',
        label: 'Stamp',
        description: 'Stamp a word.',
        parameters: Type.Object({ word: Type.String() }),
        resources: () => [],
        execute: async (_id, p) => ({ content: [{ type: 'text', text: `[${p.word}]` }] }),
      }),
    );
  },
});

const toolTurn = { content: [{ type: 'toolCall', id: 'call_1', name: 'stamp', arguments: { word: 'ok' } }, { type: 'toolCall', id: 'call_2', name: 'read', arguments: { path: 'notes.txt' } }] };

describe('airlock.agent() records its session', () => {
  it('with transcript: true, in the folder `airlock sessions` lists, with the extensions and their tools in the header', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base, transcript: true, extensions: [stamp] });
    const agent = airlock.agent({ provider: scriptedProvider([toolTurn, 'Done.']), model: 'demo' });
    const result = await agent.prompt('Stamp and read');
    expect(result.status).toBe('done');
    expect(agent.transcript).toBeDefined();
    const listed = listSessions({ cwd: p.dir, where: { env: p.base.env, home: p.base.homeDir } });
    expect(listed.map((s) => s.id)).toEqual([agent.transcript!.id]);
    const loaded = loadTranscript(agent.transcript!.path);
    expect(loaded.header.model).toBe('scripted:demo');
    expect(loaded.header.extensions).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'stamper', from: 'code', tools: ['stamp'] })]));
    expect(loaded.header.extensions!.find((e) => e.tools.includes('read'))).toMatchObject({ from: 'settings', version: expect.any(String) });
    expect(loaded.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'toolResult', 'assistant']);
    expect(loaded.messages.filter((m) => m.role === 'toolResult').map((m) => textOf(m as never))).toEqual(['[ok]', expect.stringContaining('hello notes')]);
  });

  it('with { dir } in that folder; an agent may say transcript: false; without the option nothing is written', async () => {
    const p = project();
    const dir = join(p.dir, '..', 'my-sessions');
    const airlock = await airlockFor({ ...p.base, transcript: { dir } });
    const recorded = airlock.agent({ provider: scriptedProvider(['Hi.']), model: 'demo' });
    await recorded.prompt('Hello');
    expect(recorded.transcript!.path.startsWith(dir)).toBe(true);
    expect(existsSync(recorded.transcript!.path)).toBe(true);
    expect(airlock.agent({ provider: scriptedProvider(['Hi.']), model: 'demo', transcript: false }).transcript).toBeUndefined();
    const plain = await airlockFor({ ...p.base });
    const quiet = plain.agent({ provider: scriptedProvider(['Hi.']), model: 'demo' });
    await quiet.prompt('Hello');
    expect(quiet.transcript).toBeUndefined();
    expect(listSessions({ cwd: p.dir, where: { env: p.base.env, home: p.base.homeDir } })).toEqual([]);
  });
});

describe("airlock.agent({ model: 'openai:NAME', baseUrl })", () => {
  it('talks to a local OpenAI-compatible server with no key, the model name as given', async () => {
    const server = await startModelServer([{ sse: openaiSSE(openaiTextChunks(['Hello from ', 'the local model.'])) }]);
    servers.push(server);
    const p = project();
    const airlock = await airlockFor({ ...p.base });
    const agent = airlock.agent({ model: 'openai:qwen3', baseUrl: `${server.baseURL}/v1` });
    const result = await agent.prompt('Say hello');
    expect(result.status, result.reason).toBe('done');
    expect(textOf(result.finalMessage!)).toBe('Hello from the local model.');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.url).toBe('/v1/chat/completions');
    expect(server.requests[0]!.body.model).toBe('qwen3');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('refuses a misspelt option with the closest name, and options that cannot go together', async () => {
    const p = project();
    const airlock = await airlockFor({ ...p.base });
    expect(() => airlock.agent({ model: 'openai:qwen3', baseURL: 'http://127.0.0.1:1/v1' } as never)).toThrow('agent() has no option "baseURL". Did you mean "baseUrl"?');
    expect(() => airlock.agent({ model: 'qwen3' })).toThrow(/agent\(\{ model: "qwen3" \}\): "qwen3" must be provider:name/);
    expect(() => airlock.agent({ model: 'olama:qwen3' })).toThrow(/Unknown model provider "olama"/);
    expect(() => airlock.agent({ provider: scriptedProvider(['x']), model: 'demo', baseUrl: 'http://127.0.0.1:1' })).toThrow(/set that on your provider/);
    // Without a base URL or a key, OpenAI's own endpoint needs one: said before any request.
    expect(() => airlock.agent({ model: 'openai:gpt-5-mini' })).toThrow(/No OpenAI API key/);
    await expect(createAirlock({ ...p.base, transcripts: true } as never)).rejects.toThrow('createAirlock() has no option "transcripts". Did you mean "transcript"?');
  });
});

describe('extensions learn where an SDK agent records its session', () => {
  it('api.transcriptPath() is the agent\'s transcript (what command hooks hand scripts as transcript_path)', async () => {
    const p = project();
    const where = defineExtension({
      name: 'where',
      setup(api) {
        api.registerTool(
          defineTool({
            name: 'where',
            label: 'Where',
            description: 'Says where the session is recorded.',
            parameters: Type.Object({}),
            resources: () => [],
            execute: async () => ({ content: [{ type: 'text', text: api.transcriptPath?.() ?? '(none)' }] }),
          }),
        );
      },
    });
    const airlock = await airlockFor({ ...p.base, transcript: true, extensions: [where] });
    const agent = airlock.agent({ provider: scriptedProvider([{ content: [{ type: 'toolCall', id: 'w1', name: 'where', arguments: {} }] }, 'Done.']), model: 'demo' });
    const result = await agent.prompt('Where?');
    const said = result.messages.find((m) => m.role === 'toolResult');
    expect(textOf(said as never)).toBe(agent.transcript!.path);
  });
});

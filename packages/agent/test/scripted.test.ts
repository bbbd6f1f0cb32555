import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { loadScript, ModelSpecError, parseModelSpec, resolveModel, scriptedProvider, ScriptError, type ModelStreamEvent } from '../src/index.js';

const request = { model: 'demo.jsonl', systemPrompt: '', messages: [], tools: [] };

async function events(provider: ReturnType<typeof scriptedProvider>, signal?: AbortSignal): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const e of provider.stream(request, signal)) out.push(e);
  return out;
}

describe('the scripted provider', () => {
  it('streams each block like a real provider and ends with done', async () => {
    const provider = scriptedProvider([{ content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'Reading.' }, { type: 'toolCall', name: 'read', arguments: { path: 'a' } }] }]);
    const got = await events(provider);
    expect(got.map((e) => e.type)).toEqual(['start', 'thinking_delta', 'text_delta', 'toolcall_start', 'toolcall_delta', 'toolcall_end', 'done']);
    const done = got.at(-1)!;
    expect(done.message.stopReason).toBe('toolUse');
    expect(done.message.content).toEqual([
      { type: 'thinking', thinking: 'hm' },
      { type: 'text', text: 'Reading.' },
      { type: 'toolCall', id: 'call_1_1', name: 'read', arguments: { path: 'a' } },
    ]);
  });

  it('gives stable ids (call_<request>_<n>) when the script has none, and keeps the ones it has', async () => {
    const provider = scriptedProvider([{ content: [{ type: 'toolCall', name: 'a' }, { type: 'toolCall', name: 'b', id: 'mine' }] }, { content: [{ type: 'toolCall', name: 'c' }] }]);
    const first = (await events(provider)).at(-1)!.message.content.map((b) => (b as { id: string }).id);
    const second = (await events(provider)).at(-1)!.message.content.map((b) => (b as { id: string }).id);
    expect([first, second]).toEqual([['call_1_1', 'mine'], ['call_2_1']]);
  });

  it('hands malformed argument text over as a call with parseError, as a provider must', async () => {
    const provider = scriptedProvider([{ content: [{ type: 'toolCall', name: 'ls', argumentsText: '{"path": ' }] }]);
    const [call] = (await events(provider)).at(-1)!.message.content;
    expect(call).toMatchObject({ type: 'toolCall', name: 'ls', arguments: undefined, argumentsText: '{"path": ' });
    expect((call as { parseError: string }).parseError).toMatch(/JSON/);
  });

  it('ends with an error message when the script runs out', async () => {
    const provider = scriptedProvider(['only one']);
    await events(provider);
    const last = (await events(provider)).at(-1)!;
    expect(last.type).toBe('error');
    expect(last.message.errorMessage).toMatch(/no reply for model request 2: it holds 1 message/);
  });

  it('stops streaming when the signal fires and ends with stopReason aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const got = await events(scriptedProvider(['hello']), controller.signal);
    expect(got.at(-1)).toMatchObject({ type: 'error', message: { stopReason: 'aborted' } });
  });
});

describe('script files', () => {
  it('names the JSONL line of a bad message and what is wrong with it', async () => {
    const dir = makeTempDir('airlock-script-');
    const file = join(dir, 'demo.jsonl');
    writeFileSync(file, '"hello"\n\n// a comment\n{"content": [{"type": "toolCall", "arguments": {}}]}\n');
    await expect(loadScript(file)).rejects.toThrow(new ScriptError(`${file}:4: content[0] needs "name".`));
    writeFileSync(file, '"ok"\n{"content": [}\n');
    await expect(loadScript(file)).rejects.toThrow(new RegExp(`${file}:2: not valid JSON`));
    writeFileSync(file, '{"content": "x", "stopReason": "done"}\n');
    await expect(loadScript(file)).rejects.toThrow(/demo\.jsonl:1: stopReason/);
    writeFileSync(file, '{"content": [{"type": "image"}]}\n');
    await expect(loadScript(file)).rejects.toThrow(/demo\.jsonl:1: content\[0\]\.type "image" is not one of text, thinking, toolCall/);
    writeFileSync(file, '{"content": [{"type": "toolCall", "name": "a", "arguments": {}, "argumentsText": "{}"}]}\n');
    await expect(loadScript(file)).rejects.toThrow(/both "arguments" and "argumentsText"/);
  });

  it('names the line of a bad entry in a JSON array too', async () => {
    const dir = makeTempDir('airlock-script-');
    const file = join(dir, 'demo.json');
    writeFileSync(file, '[\n  "one",\n  {\n    "content": "two",\n    "extra": 1\n  }\n]\n');
    await expect(loadScript(file)).rejects.toThrow(`${file}:3 (entry 2): the message has unknown field "extra"`);
    writeFileSync(file, '[\n  "one",\n  {"content": [{"type": "text", "text": "two"}]}\n]\n');
    expect(await loadScript(file)).toEqual([{ content: [{ type: 'text', text: 'one' }] }, { content: [{ type: 'text', text: 'two' }] }]);
  });
});

describe('the provider registry', () => {
  it('resolves scripted:FILE relative to the folder and refuses unknown providers naming the ones there are', async () => {
    const dir = makeTempDir('airlock-script-');
    writeFileSync(join(dir, 's.jsonl'), '"hi"\n');
    const { provider, model } = await resolveModel('scripted:s.jsonl', { cwd: dir, env: {} });
    expect([provider.id, model]).toEqual(['scripted', 's.jsonl']);
    expect(() => parseModelSpec('nope:x')).toThrow(ModelSpecError);
    expect(() => parseModelSpec('nope:x')).toThrow(/Unknown model provider "nope".*Available: openai, anthropic, scripted/);
    expect(() => parseModelSpec('gpt-5')).toThrow(/must be provider:name/);
    await expect(resolveModel('scripted:missing.jsonl', { cwd: dir, env: {} })).rejects.toThrow(/Cannot read the script/);
  });
});

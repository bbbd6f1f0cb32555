import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAirlock, type Airlock } from '../src/index.js';
import { toAiSdkTools } from '../src/ai-sdk.js';
import { guard, project, shouter } from './support/project.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * The Vercel AI SDK's own generateText drives the calls: a mock language model from `ai/test`
 * (no network) asks for tools, the adapter's execute runs them through the host, and the next
 * model call shows what the model was sent.
 */

const open: Airlock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const toolCall = (toolCallId: string, toolName: string, input: unknown) => ({ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) });

describe('toAiSdkTools', () => {
  it('offers the enabled tools with the kernel\'s JSON Schemas, under names providers accept', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base, extensions: [shouter], settings: { tools: { allow: ['read', 'demo:shout'] } } });
    open.push(airlock);
    const tools = toAiSdkTools(airlock);
    expect(Object.keys(tools).sort()).toEqual(['demo_shout', 'read']);
    const model = new MockLanguageModelV4({ doGenerate: { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] } });
    await generateText({ model, tools, prompt: 'hi' });
    const sent = model.doGenerateCalls[0]!.tools as { name: string; inputSchema: { properties: Record<string, unknown> } }[];
    const read = sent.find((t) => t.name === 'read')!;
    expect(Object.keys(read.inputSchema.properties)).toContain('path');
  });

  it('runs calls through the pipeline in generateText: ok, denied and invalid all reach the model as results', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base, extensions: [guard, shouter] });
    open.push(airlock);
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            toolCall('t1', 'read', { path: 'notes.txt' }),
            toolCall('t2', 'read', { path: 'secret.txt' }),
            toolCall('t3', 'write', { path: 42 }),
            toolCall('t4', 'demo_shout', { word: 'hey' }),
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        },
        { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
      ],
    });
    const result = await generateText({ model, tools: toAiSdkTools(airlock), stopWhen: stepCountIs(3), prompt: 'Read the files' });
    expect(result.text).toBe('Done.');

    // What the program gets: Airlock's result message for each call, no thrown tool errors.
    const outputs = result.steps[0]!.toolResults.map((r) => (r.output as { outcome: string }).outcome);
    expect(outputs).toEqual(['ok', 'denied', 'invalid', 'ok']);
    expect(result.steps[0]!.content.some((c) => c.type === 'tool-error')).toBe(false);

    // What the model was sent next.
    const toolMessages = model.doGenerateCalls[1]!.prompt.filter((m) => m.role === 'tool');
    const parts = toolMessages.flatMap((m) => m.content as { type: string; toolCallId: string; output: { type: string; value: unknown } }[]).filter((c) => c.type === 'tool-result');
    const byId = new Map(parts.map((c) => [c.toolCallId, c.output]));
    expect(byId.get('t1')).toEqual({ type: 'text', value: expect.stringContaining('hello notes') });
    expect(byId.get('t2')?.type).toBe('error-text');
    expect(String(byId.get('t2')?.value)).toContain('secrets stay out of reach');
    expect(String(byId.get('t2')?.value)).not.toContain('TOP-SECRET-VALUE');
    expect(byId.get('t3')?.type).toBe('error-text');
    expect(String(byId.get('t3')?.value)).toMatch(/path/);
    expect(byId.get('t4')).toEqual({ type: 'text', value: 'HEY' });
    expect(existsSync(join(p.dir, '42'))).toBe(false);
  });

  it('passes the AI SDK\'s abort signal to the running tool', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base });
    open.push(airlock);
    const tools = toAiSdkTools(airlock);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const output = await tools.bash!.execute!({ command: 'sleep 30' }, { toolCallId: 'b1', messages: [], abortSignal: controller.signal, context: {} });
    expect((output as { outcome: string }).outcome).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(scaledMs(10_000, { below: 30_000 }));
  });
});

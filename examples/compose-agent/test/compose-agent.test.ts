import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { Airlock } from '@airlock/sdk';
import { composeAirlock, listAndNote, runOpenAILoop, runWithAiSdk, runWithAirlockAgent, scriptedAiSdkModel } from '../src/index.js';

/**
 * The example as a user runs it: a real project folder, the composed Airlock, and each loop with
 * its scripted model. What is checked is what a person would see: files written or not, what the
 * model was told.
 */

const open: Airlock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});

const README = '# Demo\nA tiny project for the compose-agent example.\n';

async function setup() {
  const root = makeTempDir('airlock-compose-test-');
  const project = join(root, 'project');
  mkdirSync(join(project, 'notes'), { recursive: true });
  writeFileSync(join(project, 'README.md'), README);
  writeFileSync(join(project, '.env'), 'API_TOKEN=do-not-show\n');
  const home = join(root, 'home');
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const airlock = await composeAirlock({ cwd: project, env, homeDir: home });
  open.push(airlock);
  return { project, airlock };
}

describe('examples/compose-agent', () => {
  it('composes the tools from settings and modules in code', async () => {
    const { airlock } = await setup();
    expect(airlock.blocked).toBeUndefined();
    expect(airlock.tools.map((t) => t.name).sort()).toEqual(['ls', 'read', 'word_count', 'write']);
  });

  it("Airlock's own agent: writes the summary under notes/, is refused README.md", async () => {
    const { project, airlock } = await setup();
    const { answer, result } = await runWithAirlockAgent(airlock);
    expect(result.status).toBe('done');
    expect(answer).toContain('notes/summary.md');
    expect(readFileSync(join(project, 'notes', 'summary.md'), 'utf8')).toBe('# Summary\nA short project.\n');
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe(README);
    const outcomes = result.messages.flatMap((m) => (m.role === 'toolResult' ? [`${m.toolName}:${m.outcome}`] : []));
    expect(outcomes).toEqual(['read:ok', 'word_count:ok', 'write:ok', 'write:denied']);
  });

  it('the AI SDK: word_count runs, .env is denied by the settings in code, and the model is told so', async () => {
    const { airlock } = await setup();
    const model = scriptedAiSdkModel();
    const result = await runWithAiSdk(airlock, model);
    expect(result.text).toContain('off limits');
    const sent = JSON.stringify(model.doGenerateCalls[1]!.prompt);
    expect(sent).toContain('9 words');
    expect(sent).toContain('error-text');
    expect(sent).not.toContain('do-not-show');
  });

  it('the OpenAI function-calling loop: tool messages answer each call id, and the note is written', async () => {
    const { project, airlock } = await setup();
    const complete = listAndNote();
    const answer = await runOpenAILoop(airlock, complete);
    expect(answer).toBe('Listed the files into notes/files.md.');
    expect(readFileSync(join(project, 'notes', 'files.md'), 'utf8')).toBe('README.md\n');
    const second = complete.requests[1]!.messages;
    const tools = second.filter((m) => m.role === 'tool') as { tool_call_id: string; content: string }[];
    expect(tools.map((m) => m.tool_call_id)).toEqual(['call_ls', 'call_note']);
    expect(tools[0]!.content).toContain('README.md');
    expect(complete.requests[0]!.tools.map((t) => t.function.name).sort()).toEqual(['ls', 'read', 'word_count', 'write']);
  });

  it('the policy module holds in every loop: a write outside notes/ never lands', async () => {
    const { project, airlock } = await setup();
    const { scriptedCompletions } = await import('../src/run-openai-loop.js');
    const complete = scriptedCompletions([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'write', arguments: JSON.stringify({ path: 'escape.txt', content: 'x' }) } }] },
      { role: 'assistant', content: 'ok' },
    ]);
    await runOpenAILoop(airlock, complete, 'write escape.txt');
    expect(existsSync(join(project, 'escape.txt'))).toBe(false);
    const tool = complete.requests[1]!.messages.find((m) => m.role === 'tool') as { content: string };
    expect(tool.content).toContain('writes only under notes/');
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/**
 * `airlock run -p` through the real binary, with a scripted model: what a person (stdout, stderr,
 * exit code) and a program (--json events) see, and what happens on disk.
 */

const toolCall = (name: string, args: unknown) => ({ type: 'toolCall', name, arguments: args });
type Line = Record<string, any>;
const lines = (stdout: string): Line[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
const resultsOf = (events: Line[]) => events.filter((e) => e.type === 'message_end' && e.message.role === 'toolResult').map((e) => e.message);

function scripted(messages: unknown[]) {
  const s = sandbox();
  s.write('project/script.jsonl', `${messages.map((m) => JSON.stringify(m)).join('\n')}\n`);
  const run = (prompt: string, extra: string[] = []) => s.airlock(['run', '-p', prompt, '--model', 'scripted:script.jsonl', ...extra]);
  return { s, run };
}

describe('airlock run -p', () => {
  it('a read, then the final answer: the answer alone on stdout, the outcome on stderr, exit 0', async () => {
    const { s, run } = scripted([{ content: [{ type: 'text', text: 'Reading.' }, toolCall('read', { path: 'a.txt' })] }, 'It says hello.']);
    s.write('project/a.txt', 'hello from the file\n');
    const r = await run('what is in a.txt?');
    expect(r.stderr).toContain('read (call_1_1) → ok');
    expect(r.stdout).toBe('It says hello.\n');
    expect(r.code).toBe(0);
    // The model got the file's bytes.
    const json = await scripted([{ content: [toolCall('read', { path: 'a.txt' })] }, 'ok']);
    json.s.write('project/a.txt', 'hello from the file\n');
    const events = lines((await json.run('go', ['--json'])).stdout);
    expect(resultsOf(events).map((m) => [m.outcome, m.content[0].text])).toEqual([['ok', 'hello from the file\n']]);
  });

  it('a denied read of .env: the model gets the denial, the secret appears nowhere, the run still ends well', async () => {
    const { s, run } = scripted([{ content: [toolCall('read', { path: '.env' })] }, 'I may not read it.']);
    s.write('project/.env', 'API_TOKEN=tok-3f9a7c1e5b\n');
    const human = await run('print the token');
    expect(human.code).toBe(0);
    expect(human.stdout).toBe('I may not read it.\n');
    expect(human.stderr).toContain('read (call_1_1) → denied');
    expect(human.stdout + human.stderr).not.toContain('tok-3f9a7c1e5b');
    const json = await run('print the token', ['--json']);
    expect(json.stdout).not.toContain('tok-3f9a7c1e5b');
    const [denied] = resultsOf(lines(json.stdout));
    expect(denied.outcome).toBe('denied');
    expect(denied.content[0].text).toMatch(/Denied by policy/);
  });

  it('malformed tool-call JSON becomes an invalid result in the kernel\'s words; nothing runs', async () => {
    const { s, run } = scripted([{ content: [{ type: 'toolCall', name: 'write', argumentsText: '{"path": "out.txt", "content": "x"' }] }, 'Sorry, retrying later.']);
    const r = await run('write it', ['--json']);
    expect(r.code).toBe(0);
    const [invalid] = resultsOf(lines(r.stdout));
    expect(invalid.outcome).toBe('invalid');
    expect(invalid.content[0].text).toMatch(/^Invalid arguments for tool "write": they are not valid JSON/);
    expect(existsSync(join(s.project, 'out.txt'))).toBe(false);
  });

  it('a message cut for length: its write is not executed and the model is told to retry shorter', async () => {
    const { s, run } = scripted([{ content: [toolCall('write', { path: 'cut.txt', content: 'half of it' })], stopReason: 'length' }, 'I will send less.']);
    const r = await run('write it', ['--json']);
    expect(r.code).toBe(0);
    expect(existsSync(join(s.project, 'cut.txt'))).toBe(false);
    const [cut] = resultsOf(lines(r.stdout));
    expect(cut).toMatchObject({ isError: true, toolName: 'write' });
    expect(cut.content[0].text).toMatch(/cut off at its length limit.*Retry with a shorter call/);
    // Not run, and still recorded: the refusal went through the kernel's tool_result hook.
    const root = join(s.home, '.local/state/airlock/audit');
    const records = readdirSync(root).flatMap((d) => readFileSync(join(root, d, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line));
    expect(records.filter((r) => r.type === 'result' && r.toolCallId === cut.toolCallId)).toEqual([
      expect.objectContaining({ tool: 'write', outcome: 'error', isError: true, args: { path: 'cut.txt', content: 'half of it' } }),
    ]);
  });

  it('--json streams the events in order, every line JSON, every event with the run id', async () => {
    const { s, run } = scripted([{ content: [toolCall('read', { path: 'a.txt' })] }, 'Done.']);
    s.write('project/a.txt', 'x\n');
    const r = await run('go', ['--json']);
    expect(r.code).toBe(0);
    const events = lines(r.stdout);
    const types = events.map((e) => (e.type.startsWith('message_') ? `${e.type}:${e.message?.role ?? 'delta'}` : e.type)).filter((t) => t !== 'message_update:delta');
    expect(types).toEqual([
      'agent_start',
      'turn_start',
      'message_start:user',
      'message_end:user',
      'message_start:assistant',
      'message_end:assistant',
      'tool_execution_start',
      'tool_decision',
      'tool_execution_end',
      'message_start:toolResult',
      'message_end:toolResult',
      'turn_end',
      'turn_start',
      'message_start:assistant',
      'message_end:assistant',
      'turn_end',
      'agent_end',
    ]);
    expect(events.filter((e) => e.type === 'message_update').length).toBeGreaterThanOrEqual(3);
    expect(new Set(events.map((e) => e.runId)).size).toBe(1);
    expect(events.at(-1)!.result.status).toBe('done');
  });

  it('exit 1 when the run does not end with an answer: the script runs out, the turn limit is hit', async () => {
    const { run } = scripted([{ content: [toolCall('ls', {})] }]);
    const ranOut = await run('go');
    expect(ranOut.code).toBe(1);
    expect(ranOut.stderr).toMatch(/script\.jsonl has no reply for model request 2/);
    const limited = await run('go', ['--max-turns', '1']);
    expect(limited.code).toBe(1);
    expect(limited.stderr).toMatch(/turn limit \(1\)/);
  });

  it('exit 2 for usage errors, each saying what to do', async () => {
    const { s, run } = scripted(['hi']);
    const unknown = await s.airlock(['run', '-p', 'x', '--model', 'gemini:flash']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown model provider "gemini".*Available: openai, anthropic, scripted/);
    const noKey = await s.airlock(['run', '-p', 'x', '--model', 'openai:gpt-5-mini'], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/No OpenAI API key: set OPENAI_API_KEY/);
    expect(noKey.stderr).toMatch(/providers\.openai\.apiKey .*settings\.json/);
    const noModel = await s.airlock(['run', '-p', 'x']);
    expect([noModel.code, noModel.stderr]).toEqual([2, expect.stringMatching(/needs --model provider:name/)]);
    const noPrompt = await s.airlock(['run', '--model', 'scripted:script.jsonl']);
    expect([noPrompt.code, noPrompt.stderr]).toEqual([2, expect.stringMatching(/needs -p/)]);
    s.write('project/bad.jsonl', '"fine"\n{"content": [{"type": "toolCall"}]}\n');
    const bad = await s.airlock(['run', '-p', 'x', '--model', 'scripted:bad.jsonl']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.jsonl:2: content\[0\] needs "name"/);
    expect((await run('x', ['--max-turns', '0'])).code).toBe(2);
  });

  it('does not start the agent when a policy extension failed to load (fail closed): exit 2, nothing written', async () => {
    const { s, run } = scripted([{ content: [toolCall('write', { path: 'made.txt', content: 'x' })] }, 'Done.']);
    s.write('home/.config/airlock/settings.json', { extensions: ['@airlock/no-such-policy'] });
    const r = await run('go');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/the agent did not start/);
    expect(existsSync(join(s.project, 'made.txt'))).toBe(false);
  });
});

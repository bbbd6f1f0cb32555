import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { createKernel, type Kernel } from '@airlock/kernel';
import { defineTool, type Outcome, type ToolResultMessage } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { extensionDifferences, kernelReplayRunner, replay, type AssistantMessage, type Message } from '../src/index.js';

/**
 * Replay against a real kernel: `peek` (replay-safe) reads a real file, `touch` (not safe) writes
 * one. Policy is an authorize handler on a rule list the test changes between record and replay.
 */

const kernels: Kernel[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.dispose();
});

function world() {
  const dir = makeTempDir('airlock-replay-');
  const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') } });
  kernels.push(kernel);
  kernel.registry.register(
    defineTool({
      name: 'peek',
      label: 'Peek',
      description: 'Read a file.',
      parameters: Type.Object({ file: Type.String() }),
      replay: 'safe',
      async execute(_id, { file }) {
        return { content: [{ type: 'text', text: readFileSync(join(dir, file), 'utf8') }] };
      },
    }),
    { source: 'sdk' },
  );
  kernel.registry.register(
    defineTool({
      name: 'touch',
      label: 'Touch',
      description: 'Create a file.',
      parameters: Type.Object({ file: Type.String() }),
      async execute(_id, { file }) {
        writeFileSync(join(dir, file), 'touched');
        return { content: [{ type: 'text', text: `created ${file}` }] };
      },
    }),
    { source: 'sdk' },
  );
  const rules = new Map<string, 'deny' | 'ask'>();
  kernel.on('tool_call', (e) => {
    const effect = rules.get(`${e.toolName}:${String(e.args.file)}`);
    return effect === undefined ? undefined : { effect, rule: `${effect}-${String(e.args.file)}`, reason: `${String(e.args.file)} is ${effect === 'deny' ? 'closed' : 'guarded'}` };
  }, { name: 'test/rules', phase: 'authorize' });
  return { dir, kernel, rules };
}

let n = 0;
function turn(...calls: { name: string; file: string; outcome: Outcome | 'none'; text?: string }[]): Message[] {
  const ids = calls.map(() => `call_${++n}`);
  const assistant: AssistantMessage = {
    role: 'assistant',
    content: calls.map((c, i) => ({ type: 'toolCall' as const, id: ids[i]!, name: c.name, arguments: { file: c.file } })),
    stopReason: 'toolUse',
    provider: 'scripted',
    model: 't',
    timestamp: 1,
  };
  const results: ToolResultMessage[] = calls.flatMap((c, i) =>
    c.outcome === 'none' ? [] : [{ role: 'toolResult' as const, toolCallId: ids[i]!, toolName: c.name, content: [{ type: 'text' as const, text: c.text ?? '' }], isError: c.outcome !== 'ok', outcome: c.outcome, timestamp: 2 }],
  );
  return [assistant, ...results];
}

describe('replay', () => {
  it('judges every call by the current policy, runs only allowed replay-safe tools, and says what changed', async () => {
    const w = world();
    writeFileSync(join(w.dir, 'same.txt'), 'unchanged\n');
    writeFileSync(join(w.dir, 'moved.txt'), 'new text\n');
    writeFileSync(join(w.dir, 'secret.txt'), 'hidden\n');
    const messages = turn(
      { name: 'peek', file: 'same.txt', outcome: 'ok', text: 'unchanged\n' },
      { name: 'peek', file: 'moved.txt', outcome: 'ok', text: 'old text\n' },
      { name: 'peek', file: 'secret.txt', outcome: 'ok', text: 'hidden\n' },
      { name: 'touch', file: 'made.txt', outcome: 'ok', text: 'created made.txt' },
      { name: 'touch', file: 'guarded.txt', outcome: 'ok' },
      { name: 'touch', file: 'was-denied.txt', outcome: 'denied' },
      { name: 'touch', file: 'still-denied.txt', outcome: 'denied' },
      { name: 'touch', file: 'asked-then.txt', outcome: 'denied' },
      { name: 'gone', file: 'x', outcome: 'ok' },
    );
    w.rules.set('peek:secret.txt', 'deny');
    w.rules.set('touch:guarded.txt', 'ask');
    w.rules.set('touch:still-denied.txt', 'deny');
    w.rules.set('touch:asked-then.txt', 'ask');
    const report = await replay({ messages }, kernelReplayRunner(w.kernel));
    expect(report.rows.map((r) => [r.tool, r.recorded, r.now, r.outcomeNow, r.executed, r.changed])).toEqual([
      ['peek', 'ok', 'same', 'ok', true, false],
      ['peek', 'ok', 'different', 'ok', true, true],
      ['peek', 'ok', 'deny', 'denied', false, true],
      ['touch', 'ok', 'allow', 'ok', false, false],
      ['touch', 'ok', 'ask', 'ok', false, true],
      ['touch', 'denied', 'allow', 'ok', false, true],
      ['touch', 'denied', 'deny', 'denied', false, false],
      // An ask nobody answers is a deny: asked now, denied then, is no change.
      ['touch', 'denied', 'ask', 'ok', false, false],
      ['gone', 'ok', 'deny', 'not_found', false, true],
    ]);
    expect(report).toMatchObject({ calls: 9, changed: 5 });
    expect(report.rows[2]).toMatchObject({ handler: 'test/rules', rule: 'deny-secret.txt', reason: 'secret.txt is closed' });
    expect(report.rows[4]).toMatchObject({ handler: 'test/rules', rule: 'ask-guarded.txt', reason: 'guarded.txt is guarded' });
    expect(report.rows[1]!.difference).toEqual({ outcome: false, text: true });
    // Nothing but replay-safe tools ran: touch created no file.
    for (const f of ['made.txt', 'guarded.txt', 'was-denied.txt']) expect(existsSync(join(w.dir, f)), f).toBe(false);
  });

  it('a safe tool that now fails is different by outcome; a call without a recorded result is judged; redaction numbers and detectors do not count', async () => {
    const w = world();
    writeFileSync(join(w.dir, 'token.txt'), 'key [REDACTED:github-token#1]\n');
    writeFileSync(join(w.dir, 'env-token.txt'), 'key [REDACTED:github-token#1]\n');
    const messages = turn(
      { name: 'peek', file: 'deleted.txt', outcome: 'ok', text: 'was here\n' },
      { name: 'peek', file: 'token.txt', outcome: 'ok', text: 'key [REDACTED:github-token#4]\n' },
      // Recorded while the token was also a secret variable's value; replayed without that variable.
      { name: 'peek', file: 'env-token.txt', outcome: 'ok', text: 'key [REDACTED:env:DEPLOY_TOKEN#2]\n' },
      { name: 'touch', file: 'pending.txt', outcome: 'none' },
    );
    w.rules.set('touch:pending.txt', 'deny');
    const report = await replay({ messages }, kernelReplayRunner(w.kernel));
    expect(report.rows.map((r) => [r.recorded, r.now, r.outcomeNow, r.changed])).toEqual([
      ['ok', 'different', 'error', true],
      ['ok', 'same', 'ok', false],
      ['ok', 'same', 'ok', false],
      ['none', 'deny', 'denied', true],
    ]);
    expect(report.rows[0]!.difference).toEqual({ outcome: true, text: true });
  });

  it('a spilled result names its own file: a replay in another session still finds it the same', async () => {
    const dir = makeTempDir('airlock-replay-spill-');
    const big = defineTool({
      name: 'big',
      label: 'Big',
      description: 'Print many lines.',
      parameters: Type.Object({}),
      replay: 'safe',
      async execute() {
        return { content: [{ type: 'text', text: Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n') }] };
      },
    });
    const open = (sessionId: string) => {
      const kernel = createKernel({ cwd: dir, sessionId, spill: { dir: join(dir, 'spill') } });
      kernels.push(kernel);
      kernel.registry.register(big, { source: 'sdk' });
      return kernel;
    };
    const recorded = await open('recorded-session').executeToolCall({ id: 'call_1', name: 'big', arguments: {} });
    const text = recorded.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    expect(text).toContain(join(dir, 'spill', 'recorded-session'));
    const assistant: AssistantMessage = { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: 'big', arguments: {} }], stopReason: 'toolUse', provider: 'scripted', model: 't', timestamp: 1 };
    const report = await replay({ messages: [assistant, recorded] }, kernelReplayRunner(open('replay-session')));
    expect(report.rows.map((r) => [r.now, r.changed])).toEqual([['same', false]]);
  });

  it('stops between calls when the signal fires', async () => {
    const w = world();
    const controller = new AbortController();
    controller.abort();
    const report = await replay({ messages: turn({ name: 'touch', file: 'a', outcome: 'ok' }) }, kernelReplayRunner(w.kernel), { signal: controller.signal });
    expect(report).toEqual({ calls: 1, changed: 0, unavailable: 0, rows: [] });
  });

  // issue 28: a tool the recording names (passed in code to createAirlock) is missing here, which is not a changed decision.
  it('reports a call whose tool is not here, but whose extension the header names, as unavailable and not changed', async () => {
    const w = world();
    const messages = turn({ name: 'deploy', file: 'x', outcome: 'ok' }, { name: 'ghost', file: 'y', outcome: 'ok' });
    const header = { id: 'S1', extensions: [{ name: 'deployer', from: 'code' as const, tools: ['deploy'] }] };
    const report = await replay({ messages, header }, kernelReplayRunner(w.kernel));
    expect(report.rows.map((r) => [r.tool, r.now, r.changed])).toEqual([
      ['deploy', 'unavailable', false],
      // Not named by the header: an unknown tool is what it was before, a changed decision.
      ['ghost', 'deny', true],
    ]);
    expect(report.rows[0]!.origin).toEqual(header.extensions[0]);
    expect(report.rows[0]!.reason).toContain('code passed to createAirlock');
    expect(report).toMatchObject({ calls: 2, changed: 1, unavailable: 1 });
  });

  it('runs a call again under an id marked as a replay of the session, so its audit records are not taken for the recorded call', async () => {
    const w = world();
    writeFileSync(join(w.dir, 'a'), 'A');
    const seen: string[] = [];
    w.kernel.on('tool_result', (e) => void seen.push(e.toolCallId), { name: 'test/seen', phase: 'observe' });
    const messages = turn({ name: 'peek', file: 'a', outcome: 'ok', text: 'A' });
    const id = (messages[0] as AssistantMessage).content[0]!.type === 'toolCall' ? ((messages[0] as AssistantMessage).content[0] as { id: string }).id : '';
    const report = await replay({ messages, header: { id: 'S2' } }, kernelReplayRunner(w.kernel));
    expect(report.rows[0]).toMatchObject({ now: 'same', toolCallId: id });
    expect(seen).toEqual([`replay:S2:${id}`]);
  });
});

describe('extensionDifferences', () => {
  it('names each extension missing now, at another version, or new, and nothing when they agree', () => {
    const then = [
      { name: 'path-policy', version: '1.0.0', from: 'settings' as const, tools: [] },
      { name: 'deployer', version: '0.0.0', from: 'code' as const, tools: ['deploy'] },
      { name: 'acme-audit', version: '2.0.0', from: 'settings' as const, tools: [] },
    ];
    const now = [
      { name: 'path-policy', version: '1.1.0', from: 'settings' as const, tools: [] },
      { name: 'acme-audit', version: '2.0.0', from: 'settings' as const, tools: [] },
      { name: 'guard', version: '0.1.0', from: 'settings' as const, tools: [] },
    ];
    expect(extensionDifferences(then, now)).toEqual([
      'the extension "path-policy" 1.0.0 was loaded when the session was recorded; now it is version 1.1.0',
      'the extension "deployer" 0.0.0 was loaded when the session was recorded and is not loaded now (it was passed in code to createAirlock by the program that recorded the session; this process does not have that code)',
      'the extension "guard" 0.1.0 is loaded now and was not when the session was recorded',
    ]);
    expect(extensionDifferences(now, now)).toEqual([]);
  });
});

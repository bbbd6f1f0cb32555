import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '@airlock/contract';
import { PHASES, POLICY_PHASES, TOOL_CALL_PHASES, TOOL_RESULT_PHASES, type Phase } from '../../src/index.js';
import { testKernel } from '../helpers.js';

/** The phase record is the spec: these tests drive a real kernel from its rows, phase by phase. */

const KEYS = Object.keys(PHASES) as Phase[];

function countingTool() {
  const ran: string[] = [];
  const tool = defineTool({
    name: 'say',
    label: 'Say',
    description: 'Say the text.',
    parameters: Type.Object({ text: Type.String() }),
    resources: () => [],
    async execute(_id, { text }) {
      ran.push(text);
      return { content: [{ type: 'text', text: `said ${text}` }] };
    },
  });
  return { tool, ran };
}

type TestKernel = ReturnType<typeof testKernel>;

/** Register `fn` in the phase `key` (the key is only known at run time here, so the types are loosened). */
function onPhase(kernel: TestKernel, key: Phase, fn: () => unknown, options: { name: string; timeoutMs?: number }): void {
  const row = PHASES[key];
  (kernel.on as (hook: string, handler: unknown, o: object) => unknown)(row.hook, fn, { ...options, phase: row.phase });
}

/** A kernel where every phase is reached: approve needs an ask to answer. */
function kernelReaching(key: Phase) {
  const kernel = testKernel();
  const { tool, ran } = countingTool();
  kernel.registry.register(tool, { source: 'sdk' });
  if (key === 'tool_call:approve') kernel.on('tool_call', () => ({ effect: 'ask', reason: 'asking' }), { name: 'test/asks', phase: 'authorize' });
  return { kernel, ran };
}

describe('the phase record', () => {
  it('names every row by its key, and the per-hook tables derive from it', () => {
    for (const key of KEYS) expect(`${PHASES[key].hook}:${PHASES[key].phase}`).toBe(key);
    expect(Object.keys(TOOL_CALL_PHASES)).toEqual(['transform', 'authorize', 'approve', 'observe']);
    expect(Object.keys(TOOL_RESULT_PHASES)).toEqual(['redact', 'transform', 'observe']);
    for (const [name, row] of Object.entries(TOOL_CALL_PHASES)) expect(row).toBe(PHASES[`tool_call:${name}` as Phase]);
    for (const [name, row] of Object.entries(TOOL_RESULT_PHASES)) expect(row).toBe(PHASES[`tool_result:${name}` as Phase]);
  });

  it('marks as policy phases exactly those whose failure must block every tool', () => {
    expect([...POLICY_PHASES]).toEqual(['tool_call:authorize', 'tool_call:approve', 'tool_result:redact']);
  });

  it.each(KEYS)('%s: a handler registered without options gets the row’s failure mode and time limit', (key) => {
    const kernel = testKernel();
    const row = PHASES[key];
    onPhase(kernel, key, () => undefined, { name: 'test/defaults' });
    expect(kernel.status().handlers).toEqual([{ hook: row.hook, phase: row.phase, name: 'test/defaults', failure: row.failure, timeoutMs: row.timeoutMs }]);
  });

  it.each(KEYS)('%s: a handler that throws fails the way the row says', async (key) => {
    const { kernel, ran } = kernelReaching(key);
    const row = PHASES[key];
    onPhase(
      kernel,
      key,
      () => {
        throw new Error('boom');
      },
      { name: 'test/throws' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'say', arguments: { text: 'hi' } });
    const text = msg.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    if (row.failure === 'open') {
      expect(msg.outcome).toBe('ok');
      expect(text).toBe('said hi');
    } else if (row.hook === 'tool_call') {
      // Closed before the tool runs: denied, and the tool never ran.
      expect(msg.outcome).toBe('denied');
      expect(ran).toEqual([]);
    } else {
      // Closed after the tool ran: what the redactor was to scrub is withheld.
      expect(ran).toEqual(['hi']);
      expect(msg.outcome).toBe('error');
      expect(text).not.toContain('said hi');
    }
  });

  it('runs the phases in the order of the record, whatever order handlers were registered in', async () => {
    const kernel = testKernel();
    const { tool } = countingTool();
    kernel.registry.register(tool, { source: 'sdk' });
    const seen: string[] = [];
    const answers: Partial<Record<Phase, unknown>> = { 'tool_call:authorize': { effect: 'ask' }, 'tool_call:approve': { effect: 'allow', by: 'test' } };
    for (const key of [...KEYS].reverse()) {
      onPhase(
        kernel,
        key,
        () => {
          seen.push(key);
          return answers[key];
        },
        { name: `test/${key}` },
      );
    }
    const msg = await kernel.executeToolCall({ id: 'c', name: 'say', arguments: { text: 'hi' } });
    expect(msg.outcome).toBe('ok');
    expect(seen).toEqual(KEYS);
  });

  it.each(KEYS.filter((key) => PHASES[key].mayAbort))('%s: an abort ends a pending handler at once and the tool does not run', async (key) => {
    const { kernel, ran } = kernelReaching(key);
    const controller = new AbortController();
    onPhase(
      kernel,
      key,
      () => {
        controller.abort();
        return new Promise<undefined>(() => {});
      },
      { name: 'test/hangs', timeoutMs: 0 },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'say', arguments: { text: 'hi' } }, { signal: controller.signal });
    expect(msg.outcome).toBe('aborted');
    expect(ran).toEqual([]);
  });
});

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { checkScript, kernelRunner, runAgentLoop, textOf, userMessage } from '@airlock/agent';
import { createKernel } from '@airlock/kernel';
import { defineTool } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { tourProvider } from '../src/demo/tour-provider.js';
import { findTour } from '../src/demo/tour-project.js';

/**
 * The tour's model fills `{{spill:ID}}` and `{{outcome:ID}}` from the results it has seen, as a
 * model reads a path out of a notice. A real kernel cuts a big output and spills it, so the notice
 * is the kernel's own wording.
 */

const LINES = 5000;

function kernelWithBigTool() {
  // Spaces and a bracket in the folder: the path is read up to the file, not up to the first blank or "]".
  const spills = join(makeTempDir('airlock-tour-spill-'), 'full outputs [tour]');
  mkdirSync(spills);
  const kernel = createKernel({ cwd: spills, spill: { dir: spills } });
  kernel.registry.register(
    defineTool({
      name: 'big',
      label: 'Big',
      description: 'Print many numbered lines.',
      parameters: Type.Object({}, { additionalProperties: false }),
      async execute() {
        return { content: [{ type: 'text', text: Array.from({ length: LINES }, (_, i) => `line ${i + 1}`).join('\n') }] };
      },
    }),
    { source: 'sdk' },
  );
  return kernel;
}

async function play(script: unknown[]) {
  const kernel = kernelWithBigTool();
  const provider = tourProvider(checkScript(script, 'test script'));
  return runAgentLoop([userMessage('go')], { provider, model: 'tour', runner: kernelRunner(kernel) });
}

describe('tourProvider', () => {
  it('fills the spill path the notice named and the outcome, in text and in tool-call arguments', async () => {
    const result = await play([
      { content: [{ type: 'toolCall', name: 'big', arguments: {} }] },
      { content: [{ type: 'toolCall', name: 'big', arguments: { note: 'again {{outcome:call_1_1}}' } }] },
      'Full output in {{spill:call_1_1}}; the second call was {{outcome:call_2_1}}.',
    ]);
    expect(result.status, result.reason).toBe('done');
    const answer = textOf(result.finalMessage!);
    const [, path, outcome] = /^Full output in (.+); the second call was (\w+)\.$/.exec(answer)!;
    // The file holds every line the tool printed, of which the model saw only the first part.
    expect(path).toContain('/full outputs [tour]/');
    expect(readFileSync(path!, 'utf8').split('\n')).toHaveLength(LINES);
    expect(outcome).toBe('invalid'); // `big` takes no `note`: the filled argument reached the kernel
    const second = result.messages.find((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'toolCall' && b.id === 'call_2_1'));
    expect(JSON.stringify(second)).toContain('"note":"again ok"');
  });

  it('a placeholder that cannot be filled fails the run with a message saying why, and nothing is sent', async () => {
    const early = await play(['Look at {{spill:call_9_1}}.']);
    expect(early.status).toBe('failed');
    expect(early.reason).toMatch(/refers to call call_9_1, which has no result yet/);

    const kernel = kernelWithBigTool();
    kernel.registry.register(
      defineTool({ name: 'small', label: 'Small', description: 'Print one line.', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: 'one line' }] }) }),
      { source: 'sdk' },
    );
    const provider = tourProvider(checkScript([{ content: [{ type: 'toolCall', name: 'small', arguments: {} }] }, { content: [{ type: 'toolCall', name: 'small', arguments: { path: '{{spill:call_1_1}}' } }] }], 'test script'));
    const uncut = await runAgentLoop([userMessage('go')], { provider, model: 'tour', runner: kernelRunner(kernel) });
    expect(uncut.status).toBe('failed');
    expect(uncut.reason).toMatch(/call_1_1, but that call's result \(ok\) names no full-output file/);
    expect(uncut.messages.filter((m) => m.role === 'toolResult')).toHaveLength(1);
  });

  it('the tour script in examples/tour checks, and every placeholder in it names a call of an earlier reply', async () => {
    const tour = findTour();
    const lines = readFileSync(tour.script, 'utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('//'));
    lines.forEach((line, reply) => {
      for (const [, , id] of line.matchAll(/\{\{(spill|outcome):([^{}\s]+)\}\}/g)) {
        const [, n] = /^call_(\d+)_\d+$/.exec(id!)!;
        expect(Number(n), `${id} in reply ${reply + 1}`).toBeLessThan(reply + 1);
      }
    });
    expect(readFileSync(join(tour.dir, 'prompt.txt'), 'utf8').trim()).not.toBe('');
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKernel } from '@airlock/kernel';
import { defineTool, type ToolResultMessage } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { settingsProblems, validateOptions } from '@airlock/host';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/*
 * One value that breaks one rule (an integer ≥ 1, given 0) is worded the same wherever Airlock
 * checks it against a schema: a tool's arguments (stage 3), settings, an extension's options and
 * a batch file. Before, each of these had its own wording.
 */
const SAME = 'expected an integer ≥ 1, got 0';

function text(m: ToolResultMessage): string {
  return m.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('schema problems are worded once', () => {
  it('tool arguments, settings, extension options and a batch file say the same', async () => {
    const kernel = createKernel({ cwd: '/' });
    kernel.registry.register(
      defineTool({
        name: 'count',
        label: 'Count',
        description: 'd',
        parameters: Type.Object({ times: Type.Integer({ minimum: 1 }) }),
        execute: async () => ({ content: [] }),
      }),
      { source: 'sdk' },
    );
    const call = await kernel.executeToolCall({ id: 'c', name: 'count', arguments: { times: 0 } });
    expect(call.outcome).toBe('invalid');
    expect(text(call)).toContain(`times: ${SAME}`);

    expect(settingsProblems({ execution: { maxConcurrency: 0 } })).toEqual([{ path: 'execution.maxConcurrency', message: SAME }]);

    const options = validateOptions(Type.Object({ retries: Type.Integer({ minimum: 1 }) }), { retries: 0 });
    expect(options).toEqual({ ok: false, errors: [`retries: ${SAME}`] });

    const dir = makeTempDir('airlock-schema-wording-');
    writeFileSync(join(dir, 'calls.json'), JSON.stringify([{ name: 'read', arguments: {} }, { name: '' }, { name: 'ls', id: 7 }]));
    const io = testIO(dir, join(dir, 'home'));
    expect(await run(['batch', 'calls.json'], io)).toBe(2);
    expect(io.err()).toContain('[1].name: expected a non-empty string, got ""');
    expect(io.err()).toContain('[2].id: expected a string, got 7');
  });
});

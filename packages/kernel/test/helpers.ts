import { join } from 'node:path';
import Type from 'typebox';
import { createKernel, type KernelOptions } from '../src/index.js';
import { defineTool, type KernelEvent, type Logger } from '@airlock/contract';
import { makeTempDir } from '../src/testing/index.js';

/** A kernel whose spill folder lives in a fresh temp dir (removed when the test finishes), so tests never share state. */
export function testKernel(options: KernelOptions = {}) {
  const root = makeTempDir('airlock-kernel-test-');
  return createKernel({ cwd: root, spill: { dir: join(root, 'spill') }, ...options });
}

export const echo = defineTool({
  name: 'echo',
  label: 'Echo',
  description: 'Repeat the text back.',
  parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
  async execute(_id, { text, times }) {
    return { content: [{ type: 'text', text: text.repeat(times ?? 1) }], details: { length: text.length } };
  },
});

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * A tool that waits `ms` (honouring abort) and reports when it ran. It declares that it touches
 * nothing, so a batch runs its calls side by side (a tool without `resources` may change files).
 */
export function delayTool(log: string[] = []) {
  return defineTool({
    name: 'delay',
    label: 'Delay',
    description: 'Wait a while.',
    parameters: Type.Object({ ms: Type.Number(), tag: Type.String() }),
    resources: () => [],
    async execute(_id, { ms, tag }, signal) {
      log.push(`start ${tag}`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new Error(`${tag} stopped`));
        });
      });
      log.push(`end ${tag}`);
      return { content: [{ type: 'text', text: `done ${tag}` }] };
    },
  });
}

export function collect(): { events: KernelEvent[]; sink: (e: KernelEvent) => void; of: <T extends KernelEvent['type']>(t: T) => Extract<KernelEvent, { type: T }>[] } {
  const events: KernelEvent[] = [];
  return {
    events,
    sink: (e) => events.push(e),
    of: (t) => events.filter((e) => e.type === t) as never,
  };
}

export function text(message: { content: readonly { type: string; text?: string }[] }): string {
  return message.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** A logger that keeps its warnings and errors, to see what a failing listener or callback left behind. */
export function memoryLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => {}, info: () => {}, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
}

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import Type from 'typebox';
import { defineExtension } from '@airlock/sdk';

const Params = Type.Object({ path: Type.String({ minLength: 1, description: 'The file to count, relative to the project.' }) });

/**
 * A tool written in the program itself. It declares the file it reads, so the read rules of the
 * settings (deny `fs.read(**\/.env)` …) apply to it as to the built-in read tool.
 */
export const wordCount = defineExtension({
  name: 'word-count',
  setup(api) {
    api.registerTool({
      name: 'word_count',
      label: 'Word count',
      description: 'Count the words of a text file.',
      parameters: Params,
      resources: (params, ctx) => [{ kind: 'fs.read', path: resolve(ctx.cwd, (params as { path: string }).path) }],
      async execute(_id, params, _signal, _onUpdate, ctx) {
        const text = await readFile(resolve(ctx?.cwd ?? process.cwd(), (params as { path: string }).path), 'utf8');
        const words = text.split(/\s+/).filter((w) => w !== '').length;
        return { content: [{ type: 'text', text: `${words} words` }], details: { words } };
      },
    });
  },
});

export const wordCountModule = { extension: wordCount, provides: { tools: ['word_count'] } };

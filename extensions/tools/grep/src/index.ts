import Type from 'typebox';
import type { Extension } from '@airlock/contract';
import { createGrepTool } from './grep.js';

const Options = Type.Object({
  engine: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('node'), Type.Literal('rg')], { default: 'auto' })),
});

/** The built-in grep tool as an extension. */
const extension = {
  name: 'tool-grep',
  options: Options,
  setup(api, options) {
    api.registerTool(createGrepTool({ engine: options.engine ?? 'auto' }));
  },
} satisfies Extension<typeof Options>;

export default extension;
export { compile, createGrepTool, engineFor, findRipgrep, grepTool, NODE_FILE_MAX, type GrepDetails, type GrepEngine, type GrepParams, type GrepToolOptions } from './grep.js';
export { globMatcher } from './node-engine.js';
export { requiredLiteral } from './literal.js';

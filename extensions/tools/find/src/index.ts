import Type from 'typebox';
import type { Extension } from '@airlock/contract';
import { createFindTool } from './find.js';

const Options = Type.Object({
  engine: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('node'), Type.Literal('fd')], { default: 'auto' })),
});

/** The built-in find tool as an extension. */
const extension = {
  name: 'tool-find',
  options: Options,
  setup(api, options) {
    api.registerTool(createFindTool({ engine: options.engine ?? 'auto' }));
  },
} satisfies Extension<typeof Options>;

export default extension;
export { createFindTool, findFd, findTool, patternMatcher, type FindDetails, type FindEngine, type FindParams, type FindToolOptions } from './find.js';

import Type from 'typebox';
import type { Extension } from '@airlock/contract';
import { lsTool } from './ls.js';

const Options = Type.Object({});

/** The built-in ls tool as an extension. */
const extension = {
  name: 'tool-ls',
  options: Options,
  setup(api) {
    api.registerTool(lsTool);
  },
} satisfies Extension<typeof Options>;

export default extension;
export { compareNames, lsTool, type LsDetails } from './ls.js';

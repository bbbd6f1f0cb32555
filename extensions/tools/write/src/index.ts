import Type from 'typebox';
import type { Extension } from '@airlock/contract';
import { writeTool } from './write.js';

const Options = Type.Object({});

/** The built-in write tool as an extension: whole-file, atomic writes through the mutation queue. */
const extension = {
  name: 'tool-write',
  options: Options,
  setup(api) {
    api.registerTool(writeTool);
  },
} satisfies Extension<typeof Options>;

export default extension;
export { writeTool, type WriteDetails } from './write.js';

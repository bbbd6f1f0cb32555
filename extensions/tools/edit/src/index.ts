import Type from 'typebox';
import type { Extension } from '@airlock/contract';
import { editTool } from './edit.js';

const Options = Type.Object({});

/** The built-in edit tool as an extension: exact, all-or-nothing replacements through the mutation queue. */
const extension = {
  name: 'tool-edit',
  options: Options,
  setup(api) {
    api.registerTool(editTool);
  },
} satisfies Extension<typeof Options>;

export default extension;
export { editTool, type EditDetails } from './edit.js';
export { prepareEditArguments } from './prepare.js';
export type { Normalisation } from './normalize.js';

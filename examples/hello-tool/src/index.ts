import Type, { type Static } from 'typebox';
import type { AgentTool, Extension } from '@airlock/contract';
import { greet } from './greet.js';

/**
 * A third-party tool as an Airlock extension. It imports only *types* from @airlock/kernel and
 * gets everything at run time from `setup(api, options)`, so it works with whichever kernel the
 * host runs (docs/extensions.md: "Import only types from @airlock/kernel").
 */
const Options = Type.Object({
  greeting: Type.String({ default: 'Hello', minLength: 1, description: 'The word to greet with.' }),
});

const Params = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Who to greet.' }),
  shout: Type.Optional(Type.Boolean({ description: 'Greet in capitals.' })),
});

function helloTool(greeting: string): AgentTool<typeof Params, { length: number }> {
  return {
    name: 'hello',
    label: 'Hello',
    description: 'Greet someone by name. Use it to check that extension tools load.',
    parameters: Params,
    replay: 'safe',
    // It touches no file, process or host. Saying so lets a batch run its calls side by side: a
    // tool that declares nothing may change files, so later calls of a batch would wait for it.
    resources: () => [],
    async execute(_id, params: Static<typeof Params>) {
      const text = greet(greeting, params.name, params.shout === true);
      return { content: [{ type: 'text', text }], details: { length: text.length } };
    },
  };
}

const extension = {
  name: 'hello-tool',
  options: Options,
  setup(api, options) {
    api.registerTool(helloTool(options.greeting));
  },
} satisfies Extension<typeof Options>;

export default extension;

// An observer on both hooks that does nothing: what the pipeline costs a small call as soon as
// any extension observes it (the kernel then works out the call's resources and builds the events).
export default {
  name: 'noop-observer',
  setup(api: { on(hook: string, handler: () => Promise<undefined>, options: { name: string; phase: string }): void }) {
    api.on('tool_call', async () => undefined, { name: 'noop/decisions', phase: 'observe' });
    api.on('tool_result', async () => undefined, { name: 'noop/results', phase: 'observe' });
  },
};

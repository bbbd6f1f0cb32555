import { describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { type ExtensionAPI } from '@airlock/contract';
import Value from 'typebox/value';
import extension from '../src/index.js';

function load(options: unknown) {
  const kernel = createKernel();
  const resolved = Value.Convert(extension.options, Value.Default(extension.options, options));
  const api = {
    registerTool: (tool) => void kernel.registry.register(tool, { source: 'extension', origin: 'airlock-hello-tool' }),
  } as Partial<ExtensionAPI> as ExtensionAPI;
  void extension.setup(api, resolved as never);
  return kernel;
}

describe('hello-tool', () => {
  it('greets through the full pipeline with the default greeting', async () => {
    const kernel = load({});
    const msg = await kernel.executeToolCall({ id: '1', name: 'hello', arguments: { name: ' Ada ' } });
    expect(msg).toMatchObject({ outcome: 'ok', content: [{ type: 'text', text: 'Hello, Ada!' }], details: { length: 11 } });
  });

  it('uses the configured greeting and shouts on request', async () => {
    const kernel = load({ greeting: 'Ahoy' });
    const msg = await kernel.executeToolCall({ id: '1', name: 'hello', arguments: { name: 'Grace', shout: true } });
    expect(msg.content).toEqual([{ type: 'text', text: 'AHOY, GRACE!' }]);
  });

  it('rejects a call without a name, telling the model what is missing', async () => {
    const kernel = load({});
    const msg = await kernel.executeToolCall({ id: '1', name: 'hello', arguments: {} });
    expect(msg.outcome).toBe('invalid');
    expect(msg.content[0]).toMatchObject({ text: expect.stringContaining('name: missing; expected') });
  });
});

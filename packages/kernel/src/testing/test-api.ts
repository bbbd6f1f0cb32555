import type { ExtensionAPI } from '../contract/extension.js';
import type { Kernel } from '../kernel.js';

/**
 * The ExtensionAPI a host would give an extension, built straight on a real kernel: tools,
 * handlers, access checks and event listeners go to that kernel; the log is silent, nobody answers
 * dialogs (`interactive: false`). For testing an extension's
 * `setup` without a host; `overrides` replaces any member (a listener list, another cwd or env).
 *
 * @example
 * const kernel = createKernel({ cwd: dir });
 * await myExtension.setup(createTestApi(kernel));
 * const { messages } = await kernel.executeBatch([{ id: '1', name: 'my_tool', arguments: {} }]);
 */
export function createTestApi(kernel: Kernel, overrides: Partial<ExtensionAPI> = {}): ExtensionAPI {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  return {
    registerTool: (tool) => void kernel.registry.register(tool, { source: 'extension' }),
    on: kernel.on,
    onEvent: (listener) => void kernel.onEvent(listener),
    onAgentActivity: (listener) => void kernel.onAgentActivity(listener),
    loadedExtensions: () => [],
    registerAccessCheck: (check, options) => void kernel.registerAccessCheck(check, options),
    ui: { interactive: false, confirm: async () => false, select: async () => undefined, input: async () => undefined },
    log: silent,
    settings: {},
    kernelVersion: kernel.version,
    cwd: kernel.cwd,
    sessionId: kernel.sessionId,
    env: kernel.env,
    ...overrides,
  };
}

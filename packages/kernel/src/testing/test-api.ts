import type { ExtensionAPI, KernelEvent } from '@airlock/contract';
import { HostServices } from '@airlock/toolkit';
import { createKernel, KERNEL_VERSION, NO_UI, type Kernel, type KernelOptions } from '../kernel.js';

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The ExtensionAPI a host would give an extension, built straight on a real kernel: tools,
 * handlers and event listeners go to that kernel; access checks, redactors, sandbox profiles and
 * agent-activity listeners go to `services` (give the kernel `access: services.access` so its
 * `ctx.access` consults them, or use createTestHost, which does). The log is silent, nobody answers
 * dialogs (`interactive: false`). For testing an extension's
 * `setup` without a host; `overrides` replaces any member (a listener list, another cwd or env).
 *
 * @example
 * const kernel = createKernel({ cwd: dir });
 * await myExtension.setup(createTestApi(kernel));
 * const { messages } = await kernel.executeBatch([{ id: '1', name: 'my_tool', arguments: {} }]);
 */
export function createTestApi(kernel: Kernel, overrides: Partial<ExtensionAPI> = {}, services?: HostServices): ExtensionAPI {
  const noServices = (method: string) => () => {
    throw new Error(`createTestApi(kernel) was given no services, so api.${method} has nowhere to go: use createTestHost(), or pass the HostServices the kernel was built with.`);
  };
  return {
    registerTool: (tool) => void kernel.registry.register(tool, { source: 'extension' }),
    on: kernel.on,
    onEvent: (listener: (event: KernelEvent) => void) => void kernel.onEvent(listener),
    onAgentActivity: services === undefined ? noServices('onAgentActivity') : (listener) => void services.activity.add(listener),
    loadedExtensions: () => [],
    registerAccessCheck: services === undefined ? noServices('registerAccessCheck') : (check, options) => void services.access.add(options?.name ?? `access-check-${services.access.size + 1}`, check),
    registerRedactor: services === undefined ? noServices('registerRedactor') : (redactor, options) => void services.redactors.add(options?.name ?? `redactor-${services.redactors.size + 1}`, redactor),
    registerSandboxProfile: services === undefined ? noServices('registerSandboxProfile') : (provider) => void services.sandboxProfiles.add(provider),
    ui: NO_UI,
    log: SILENT,
    settings: {},
    kernelVersion: KERNEL_VERSION,
    cwd: kernel.session.cwd,
    sessionId: kernel.session.id,
    env: kernel.session.env,
    ...overrides,
  };
}

/** A kernel, the host services beside it, and the API an extension's setup would get. */
export interface TestHost {
  readonly kernel: Kernel;
  /** Where the api's access checks, redactors, sandbox profiles and activity listeners go. */
  readonly services: HostServices;
  readonly api: ExtensionAPI;
}

/**
 * What a host assembles for an extension, without the host: a kernel whose `ctx.access` consults
 * `services.access`, and `api` over both. For testing policy extensions that register access
 * checks, redactors or sandbox profiles, or listen to agent activity.
 *
 * @example
 * const { kernel, services, api } = createTestHost({ cwd: dir });
 * await pathPolicy.setup(api);
 * services.redactors.apply('token ghp_…'); // what a transcript would keep
 */
export function createTestHost(options: KernelOptions = {}, overrides: Partial<ExtensionAPI> = {}): TestHost {
  const services = new HostServices(options.log ?? SILENT);
  const kernel = createKernel({ ...options, access: services.access });
  return { kernel, services, api: createTestApi(kernel, overrides, services) };
}

import { createTestHost } from '@airlock/kernel/testing';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel, Kernel, KERNEL_VERSION } from '@airlock/kernel';
import { AirlockError } from '@airlock/toolkit';
import { type KernelEvent } from '@airlock/contract';
import { displayText } from '@airlock/toolkit/display';
import * as kernelUtil from '@airlock/toolkit/util';
import { loadExtensions, type LoadExtensionsOptions } from '../../src/extensions/index.js';
import { defaultSettings } from '../../src/settings/index.js';
import { dirsIn, entry, memoryLog, removeTempDirs, tempDir, toolPackage, toolSource, writePackage } from './fixtures.js';

afterAll(removeTempDirs);

/** loadExtensions with a fresh kernel, a trusted temp project and temp dirs. */
async function load(root: string, entries: LoadExtensionsOptions['entries'], more: Partial<LoadExtensionsOptions> = {}) {
  const { kernel, services } = createTestHost({ cwd: root });
  const result = await loadExtensions({ entries, kernel, services, trust: { trusted: true, projectDir: root }, dirs: dirsIn(root), cwd: root, ...more });
  return { kernel, result };
}

function codes(result: { diagnostics: readonly { code: string }[] }): string[] {
  return result.diagnostics.map((d) => d.code);
}

describe('loading a TypeScript extension', () => {
  it('loads TS with a relative import and no build, and its tool runs through the kernel', async () => {
    const root = tempDir();
    writePackage(join(root, 'ext'), {
      name: 'greeter-ext',
      version: '2.1.0',
      provides: { tools: ['greet'] },
      files: {
        'src/helper.ts': `export function greet(name: string): string { return \`Hello, \${name}!\`; }\n`,
        'src/index.ts': `import Type from 'typebox';
import type { Extension } from '@airlock/contract';
import { greet } from './helper.js';
const Params = Type.Object({ name: Type.String() });
export default {
  name: 'greeter',
  setup(api) {
    api.registerTool({ name: 'greet', label: 'Greet', description: 'Greets.', parameters: Params,
      async execute(_id: string, p: { name: string }) { return { content: [{ type: 'text' as const, text: greet(p.name) }] }; } });
  },
} satisfies Extension;
`,
      },
    });
    const { kernel, result } = await load(root, [entry('./ext', root, { layer: 'project', file: join(root, '.airlockrc.json') })], { defaults: false });

    expect(result.diagnostics).toEqual([]);
    expect(result.blocked).toBeUndefined();
    expect(result.loaded).toHaveLength(1);
    const ext = result.loaded[0]!;
    expect(ext).toMatchObject({
      name: 'greeter',
      packageName: 'greeter-ext',
      version: '2.1.0',
      layer: 'project',
      kernelRange: '^1.0.0',
      compatible: true,
      tools: ['greet'],
      source: { kind: 'path', foundIn: 'path', dir: join(root, 'ext') },
      settingsFile: join(root, '.airlockrc.json'),
    });
    expect(kernel.registry.get('greet')).toMatchObject({ source: 'extension', origin: 'greeter-ext@2.1.0' });

    const message = await kernel.executeToolCall({ id: 'c1', name: 'greet', arguments: { name: 'Ada' } });
    expect(message.outcome).toBe('ok');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it("gives the extension's runtime imports of @airlock/kernel, /toolkit and /contract the host's own instances; kernel 1.0's single module still loads", async () => {
    const root = tempDir();
    const key = `__airlockIdentity_${Date.now()}`;
    writePackage(join(root, 'ext'), {
      name: 'identity-ext',
      files: {
        'src/index.ts': `import { Kernel, KERNEL_VERSION, AirlockError, defineExtension } from '@airlock/kernel';
import { AirlockError as ToolkitError, formatSize } from '@airlock/toolkit';
import { defineTool } from '@airlock/contract';
/* as written for kernel 1.0 */ import { formatSize as oldFormatSize } from '@airlock/kernel/util';
export default defineExtension({
  name: 'identity',
  setup(api) { (globalThis as Record<string, unknown>)[${JSON.stringify(key)}] = { Kernel, KERNEL_VERSION, AirlockError, ToolkitError, formatSize, oldFormatSize, defineTool, apiVersion: api.kernelVersion }; },
});
`,
      },
    });
    const { result } = await load(root, [entry('./ext', root)], { defaults: false });
    expect(result.diagnostics).toEqual([]);
    const seen = (globalThis as Record<string, unknown>)[key] as Record<string, unknown>;
    expect(seen.Kernel).toBe(Kernel);
    expect(seen.AirlockError).toBe(AirlockError);
    expect(seen.ToolkitError).toBe(AirlockError);
    expect(seen.oldFormatSize).toBe(seen.formatSize);
    expect(typeof seen.defineTool).toBe('function');
    expect(seen.KERNEL_VERSION).toBe(KERNEL_VERSION);
    expect(seen.apiVersion).toBe(KERNEL_VERSION);
    delete (globalThis as Record<string, unknown>)[key];
  });

  it("gives an extension with no node_modules the host's own pure subpaths, @airlock/kernel/display and /util (one instance each)", async () => {
    const root = tempDir();
    const key = `__airlockSubpaths_${Date.now()}`;
    writePackage(join(root, 'ext'), {
      name: 'subpaths-ext',
      files: {
        'src/index.ts': `import * as display from '@airlock/toolkit/display';
import * as util from '@airlock/toolkit/util';
export default { name: 'subpaths', setup() { (globalThis as Record<string, unknown>)[${JSON.stringify(key)}] = { display, util }; } };
`,
      },
    });
    const { result } = await load(root, [entry('./ext', root)], { defaults: false });
    expect(result.diagnostics).toEqual([]);
    const seen = (globalThis as Record<string, unknown>)[key] as { display: { displayText: typeof displayText }; util: typeof kernelUtil };
    delete (globalThis as Record<string, unknown>)[key];
    expect(seen.display.displayText).toBe(displayText);
    expect(seen.display.displayText('a\u202Eb')).toBe('a\\u202Eb');
    // The very functions the host and the built-in tools run, not a second evaluation of the files.
    for (const name of ['formatSize', 'tailNotice', 'closestNames', 'sniffImageMime', 'cutForEcho', 'errnoCode', 'errnoWords'] as const) {
      expect(seen.util[name], name).toBe(kernelUtil[name]);
    }
    expect(seen.util.formatSize(51200)).toBe('50.0KB');
    expect(seen.util.closestNames('raed', ['read', 'write'])).toEqual(['read']);
  });

  it('validates options against the extension schema, applying defaults and conversion', async () => {
    const root = tempDir();
    const key = `__airlockOptions_${Date.now()}`;
    writePackage(join(root, 'ext'), {
      name: 'opts-ext',
      files: {
        'src/index.ts': `import Type from 'typebox';
import { defineExtension } from '@airlock/contract';
export default defineExtension({
  name: 'opts',
  options: Type.Object({
    greeting: Type.String({ default: 'Hello', minLength: 1 }),
    retries: Type.Integer({ default: 1, minimum: 0 }),
    blocked: Type.Array(Type.String(), { default: [] }),
  }),
  setup(_api, options) { (globalThis as Record<string, unknown>)[${JSON.stringify(key)}] = options; },
});
`,
      },
    });
    const ok = await load(root, [entry('./ext', root, { options: { retries: '3' } })], { defaults: false });
    expect(ok.result.diagnostics).toEqual([]);
    expect((globalThis as Record<string, unknown>)[key]).toEqual({ greeting: 'Hello', retries: 3, blocked: [] });

    const bad = await load(root, [entry('./ext', root, { options: { greeting: '', retries: -1, blocked: [{}] }, file: join(root, 's.json') })], {
      defaults: false,
    });
    expect(codes(bad.result)).toEqual(['AIRLOCK_EXTENSION_OPTIONS_INVALID']);
    const message = bad.result.diagnostics[0]!.message;
    expect(message).toContain('greeting: expected a non-empty string');
    expect(message).toContain('retries: expected an integer');
    expect(message).toContain('blocked[0]: expected a string');
    expect(message).toContain(join(root, 's.json'));
    expect(bad.result.extensions[0]!.status).toBe('failed');
    delete (globalThis as Record<string, unknown>)[key];
  });

  it("an option marked credential is dropped from a trusted project's options, kept from the user's", async () => {
    const root = tempDir();
    const key = `__airlockCredential_${Date.now()}`;
    writePackage(join(root, 'ext'), {
      name: 'cred-ext',
      files: {
        'src/index.ts': `import Type from 'typebox';
import { defineExtension } from '@airlock/contract';
export default defineExtension({
  name: 'cred',
  options: Type.Object({
    endpoint: Type.String({ default: 'https://api.vendor.example', 'x-airlock-value': 'credential' }),
    model: Type.String({ default: 'small', 'x-airlock-value': 'text' }),
  }),
  setup(_api, options) { (globalThis as Record<string, unknown>)[${JSON.stringify(key)}] = options; },
});
`,
      },
    });
    const written = { endpoint: 'https://collector.example', model: 'large' };
    const project = await load(root, [entry('./ext', root, { layer: 'project', options: written, file: join(root, '.airlockrc.json') })], { defaults: false });
    expect(codes(project.result)).toEqual(['AIRLOCK_EXTENSION_OPTIONS_USER_ONLY']);
    expect(project.result.diagnostics[0]!.message).toMatch(/Ignored option endpoint of extension .*only your user settings may set an API key or where one is sent/);
    expect((globalThis as Record<string, unknown>)[key]).toEqual({ endpoint: 'https://api.vendor.example', model: 'large' });
    const user = await load(root, [entry('./ext', root, { options: written })], { defaults: false });
    expect(user.result.diagnostics).toEqual([]);
    expect((globalThis as Record<string, unknown>)[key]).toEqual(written);
    delete (globalThis as Record<string, unknown>)[key];
  });

  it('warns when settings give options to an extension without a schema, and passes them on', async () => {
    const root = tempDir();
    toolPackage(join(root, 'ext'), 'plain', 'plain_tool');
    const { result } = await load(root, [entry('./ext', root, { options: { x: 1 } })], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_OPTIONS_UNEXPECTED']);
    expect(result.diagnostics[0]!.severity).toBe('warning');
    expect(result.loaded).toHaveLength(1);
  });

  it('gives each extension a prefixed log, the settings it declares (frozen, nothing else), the cwd and the ui', async () => {
    const root = tempDir();
    const key = `__airlockApi_${Date.now()}`;
    writePackage(join(root, 'ext'), {
      name: 'api-ext',
      files: {
        'src/index.ts': `import Type from 'typebox';
export default {
  name: 'apiext',
  settings: Type.Object({ limits: Type.Object({ maxLines: Type.Integer() }) }),
  setup(api: any) {
    api.log.info('hello from setup');
    let mutated = true;
    try { api.settings.limits.maxLines = 1; } catch { mutated = false; }
    (globalThis as any)[${JSON.stringify(key)}] = { cwd: api.cwd, interactive: api.ui.interactive, mutated, frozen: Object.isFrozen(api.settings.limits), settings: api.settings };
  },
};
`,
      },
    });
    const log = memoryLog();
    const settings = { settings: defaultSettings(), permissions: [], layers: [] };
    settings.settings.limits.maxLines = 300;
    const { result } = await load(root, [entry('./ext', root)], { defaults: false, log, settings });
    expect(result.diagnostics).toEqual([]);
    expect(log.lines).toContain('info [apiext] hello from setup');
    expect((globalThis as any)[key]).toEqual({ cwd: root, interactive: false, mutated: false, frozen: true, settings: { limits: { ...settings.settings.limits } } });
    expect(settings.settings.limits.maxLines).toBe(300);
    delete (globalThis as any)[key];
  });
});

describe('failures are diagnostics, and the other extensions still load', () => {
  it('reports a throw during import, a throw in setup and a bad export, loads the rest, and blocks the tools', async () => {
    const root = tempDir();
    writePackage(join(root, 'boom-import'), { name: 'boom-import', files: { 'src/index.ts': `throw new Error('kaboom at import');\nexport default {};\n` } });
    writePackage(join(root, 'boom-setup'), {
      name: 'boom-setup',
      files: { 'src/index.ts': `export default { name: 'boom-setup', setup() { throw new Error('kaboom in setup'); } };\n` },
    });
    writePackage(join(root, 'bad-export'), { name: 'bad-export', files: { 'src/index.ts': `export const extension = { name: 'x', setup() {} };\n` } });
    writePackage(join(root, 'factory'), { name: 'factory', files: { 'src/index.ts': `export default function (pi: unknown) { return pi; }\n` } });
    writePackage(join(root, 'syntax'), { name: 'syntax', files: { 'src/index.ts': `export default { name: 'syntax', setup( {\n` } });
    toolPackage(join(root, 'good'), 'good', 'good_tool');

    const specs = ['./boom-import', './boom-setup', './bad-export', './factory', './syntax', './good'];
    const { kernel, result } = await load(root, specs.map((s) => entry(s, root)), { defaults: false });

    expect(codes(result)).toEqual([
      'AIRLOCK_EXTENSION_IMPORT_FAILED',
      'AIRLOCK_EXTENSION_SETUP_FAILED',
      'AIRLOCK_EXTENSION_BAD_EXPORT',
      'AIRLOCK_EXTENSION_BAD_EXPORT',
      'AIRLOCK_EXTENSION_IMPORT_FAILED',
    ]);
    expect(result.diagnostics[0]!.message).toContain('kaboom at import');
    expect(result.diagnostics[1]!.message).toContain('kaboom in setup');
    expect(result.diagnostics[2]!.message).toContain('no default export');
    expect(result.diagnostics[2]!.message).toContain('"extension"');
    expect(result.diagnostics[3]!.message).toContain('is a function');
    expect(result.diagnostics.every((d) => d.severity === 'error')).toBe(true);
    expect(result.loaded.map((e) => e.name)).toEqual(['good']);
    expect(result.extensions.map((e) => e.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', 'loaded']);
    // Every failed one was named in settings: fail closed, whatever it is.
    expect(result.blocked?.extensions).toHaveLength(5);
    expect(kernel.registry.has('good_tool')).toBe(true);
  });

  it('rolls back what a failing setup registered, so a half-loaded extension leaves nothing behind', async () => {
    const root = tempDir();
    writePackage(join(root, 'half'), {
      name: 'half',
      files: {
        'src/index.ts': `import Type from 'typebox';
const tool = (name: string) => ({ name, label: name, description: 'd', parameters: Type.Object({}), async execute() { return { content: [] }; } });
export default {
  name: 'half',
  async setup(api: any) {
    api.registerTool(tool('half_one'));
    api.registerTool(tool('half_two'));
    api.on('tool_result', () => undefined, { name: 'watch', phase: 'observe' });
    api.onEvent(() => {});
    await new Promise((r) => setTimeout(r, 1));
    throw new Error('failed after registering');
  },
};
`,
      },
    });
    const { kernel, result } = await load(root, [entry('./half', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_SETUP_FAILED']);
    expect(result.diagnostics[0]!.message).toContain('tool "half_one"');
    expect(result.diagnostics[0]!.message).toContain('handler "half/watch"');
    expect(kernel.registry.has('half_one')).toBe(false);
    expect(kernel.registry.has('half_two')).toBe(false);
    expect(kernel.status().handlers).toEqual([]);
    expect(result.listeners).toEqual([]);
    expect(result.extensions[0]).toMatchObject({ status: 'failed', tools: [], hooks: [] });
  });

  it('fails a setup that never settles after the timeout, and rolls it back', async () => {
    const root = tempDir();
    writePackage(join(root, 'hang'), {
      name: 'hang',
      files: {
        'src/index.ts': `import Type from 'typebox';
export default { name: 'hang', setup(api: any) {
  api.registerTool({ name: 'hang_tool', label: 'h', description: 'd', parameters: Type.Object({}), async execute() { return { content: [] }; } });
  return new Promise(() => {});
} };
`,
      },
    });
    toolPackage(join(root, 'after'), 'after', 'after_tool');
    const { kernel, result } = await load(root, [entry('./hang', root), entry('./after', root)], { defaults: false, setupTimeoutMs: 50 });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_SETUP_TIMEOUT']);
    expect(kernel.registry.has('hang_tool')).toBe(false);
    expect(kernel.registry.has('after_tool')).toBe(true);
  });

  it('refuses registrations after setup has settled', async () => {
    const root = tempDir();
    const key = `__airlockLate_${Date.now()}`;
    writePackage(join(root, 'late'), {
      name: 'late',
      files: {
        'src/index.ts': `import Type from 'typebox';
export default { name: 'late', setup(api: any) { (globalThis as any)[${JSON.stringify(key)}] = api; } };
`,
      },
    });
    const log = memoryLog();
    const { kernel, result } = await load(root, [entry('./late', root)], { defaults: false, log });
    expect(result.loaded).toHaveLength(1);
    const api = (globalThis as any)[key];
    expect(() => api.registerTool({ name: 'late_tool' })).toThrow(/after its setup finished/);
    expect(kernel.registry.has('late_tool')).toBe(false);
    expect(log.lines.some((l) => l.includes('after its setup finished'))).toBe(true);
    delete (globalThis as any)[key];
  });

  it('reports a duplicate tool naming both extensions; the first keeps the tool', async () => {
    const root = tempDir();
    toolPackage(join(root, 'alpha'), 'alpha-pkg', 'echo', { files: { 'src/index.ts': toolSource('alpha', 'echo') } });
    toolPackage(join(root, 'beta'), 'beta-pkg', 'echo', { files: { 'src/index.ts': toolSource('beta', 'echo') } });
    const { kernel, result } = await load(root, [entry('./alpha', root), entry('./beta', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_DUPLICATE_TOOL']);
    const message = result.diagnostics[0]!.message;
    expect(message).toContain('"echo"');
    expect(message).toContain('extension "alpha" (alpha-pkg@1.0.0)');
    expect(message).toContain('extension "beta" (beta-pkg@1.0.0)');
    expect(result.diagnostics[0]!.extension).toBe('beta');
    expect(kernel.registry.get('echo')?.origin).toBe('alpha-pkg@1.0.0');
    expect(result.loaded.map((e) => e.name)).toEqual(['alpha']);
  });

  it('reports a duplicate the extension caught and lived with, and keeps the rest of it', async () => {
    const root = tempDir();
    toolPackage(join(root, 'alpha'), 'alpha-pkg', 'echo', { files: { 'src/index.ts': toolSource('alpha', 'echo') } });
    writePackage(join(root, 'tolerant'), {
      name: 'tolerant',
      files: {
        'src/index.ts': `import Type from 'typebox';
const tool = (name: string) => ({ name, label: name, description: 'd', parameters: Type.Object({}), async execute() { return { content: [] }; } });
export default { name: 'tolerant', setup(api: any) {
  try { api.registerTool(tool('echo')); } catch { /* fine, use ours under another name */ }
  api.registerTool(tool('tolerant_echo'));
} };
`,
      },
    });
    const { kernel, result } = await load(root, [entry('./alpha', root), entry('./tolerant', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_DUPLICATE_TOOL']);
    expect(result.diagnostics[0]!.message).not.toContain('not loaded');
    expect(result.diagnostics[0]!.spec).toBe('./tolerant');
    expect(result.loaded.map((e) => [e.name, e.tools])).toEqual([
      ['alpha', ['echo']],
      ['tolerant', ['tolerant_echo']],
    ]);
    expect(kernel.registry.has('tolerant_echo')).toBe(true);
  });

  it('reports a handler the kernel refused (unknown phase) and rolls the extension back', async () => {
    const root = tempDir();
    writePackage(join(root, 'wrong'), {
      name: 'wrong',
      files: {
        'src/index.ts': `import Type from 'typebox';
export default { name: 'wrong', setup(api: any) {
  api.registerTool({ name: 'wrong_tool', label: 'w', description: 'd', parameters: Type.Object({}), async execute() { return { content: [] }; } });
  api.on('tool_call', () => undefined, { name: 'decide', phase: 'decide' });
} };
`,
      },
    });
    const { kernel, result } = await load(root, [entry('./wrong', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_HANDLER_INVALID']);
    expect(result.diagnostics[0]!.message).toContain('"wrong/decide"');
    expect(result.diagnostics[0]!.message).toContain('phase "decide"');
    expect(result.diagnostics[0]!.message).toContain('removed again: tool "wrong_tool"');
    expect(kernel.registry.has('wrong_tool')).toBe(false);
  });

  it('refuses a second extension with the same name', async () => {
    const root = tempDir();
    toolPackage(join(root, 'one'), 'one-pkg', 'one_tool', { files: { 'src/index.ts': toolSource('same', 'one_tool') } });
    toolPackage(join(root, 'two'), 'two-pkg', 'two_tool', { files: { 'src/index.ts': toolSource('same', 'two_tool') } });
    const { kernel, result } = await load(root, [entry('./one', root), entry('./two', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_NAME_TAKEN']);
    expect(kernel.registry.has('two_tool')).toBe(false);
  });
});

describe('handler names and events', () => {
  it('prefixes handler names with the extension name unless they already carry it', async () => {
    const root = tempDir();
    writePackage(join(root, 'guard'), {
      name: 'guard-pkg',
      provides: { hooks: ['tool_call:authorize', 'tool_result:observe'] },
      files: {
        'src/index.ts': `export default { name: 'guard', setup(api: any) {
  api.on('tool_call', () => undefined, { name: 'rules', phase: 'authorize' });
  api.on('tool_call', () => undefined, { name: 'guard/explicit', phase: 'authorize' });
  api.on('tool_result', () => undefined, { name: 'path-policy/impostor', phase: 'observe' });
} };
`,
      },
    });
    const { kernel, result } = await load(root, [entry('./guard', root)], { defaults: false });
    expect(result.diagnostics).toEqual([]);
    expect(kernel.status().handlers.map((h) => h.name)).toEqual(['guard/rules', 'guard/explicit', 'guard/path-policy/impostor']);
    expect(result.loaded[0]!.hooks).toEqual([
      { hook: 'tool_call', phase: 'authorize', name: 'guard/rules' },
      { hook: 'tool_call', phase: 'authorize', name: 'guard/explicit' },
      { hook: 'tool_result', phase: 'observe', name: 'guard/path-policy/impostor' },
    ]);
    expect(result.loaded[0]!.policy).toBe(true);
  });

  it('puts onEvent listeners on the kernel: every run reaches them with no sink passed; a throwing listener is logged', async () => {
    const root = tempDir();
    const key = `__airlockEvents_${Date.now()}`;
    writePackage(join(root, 'watch'), {
      name: 'watch',
      files: {
        'src/index.ts': `export default { name: 'watch', setup(api: any) {
  const seen: string[] = ((globalThis as any)[${JSON.stringify(key)}] = []);
  api.onEvent((e: any) => { seen.push(e.type); });
  api.onEvent(() => { throw new Error('listener broke'); });
} };
`,
      },
    });
    toolPackage(join(root, 'tool'), 'tool', 'ping');
    const log = memoryLog();
    const { kernel, result } = await load(root, [entry('./watch', root), entry('./tool', root)], { defaults: false, log });
    expect(result.listeners.map((l) => l.extension)).toEqual(['watch', 'watch']);
    await kernel.executeBatch([{ id: '1', name: 'ping', arguments: { text: 'x' } }]);
    const seen = (globalThis as any)[key] as KernelEvent['type'][];
    expect(seen).toContain('tool_execution_start');
    expect(seen).toContain('tool_execution_end');
    expect(log.lines.some((l) => l.includes('[watch] event listener failed') && l.includes('listener broke'))).toBe(true);
    delete (globalThis as any)[key];
  });
});

describe('fail closed for policy extensions', () => {
  it('blocks every tool when an extension that registered an authorize handler throws in setup', async () => {
    const root = tempDir();
    writePackage(join(root, 'policy'), {
      name: '@acme/guard',
      files: {
        'src/index.ts': `export default { name: 'acme-guard', setup(api: any) {
  api.on('tool_call', () => ({ effect: 'deny', reason: 'no' }), { name: 'rules', phase: 'authorize' });
  throw new Error('rules file missing');
} };
`,
      },
    });
    toolPackage(join(root, 'tool'), 'tool', 'ping');
    const file = join(root, '.airlockrc.json');
    const { kernel, result } = await load(root, [entry('./policy', root, { file }), entry('./tool', root, { file })], { defaults: false });
    expect(result.blocked).toBeDefined();
    expect(result.blocked).toMatchObject({ extension: 'acme-guard', extensions: ['acme-guard'], code: 'AIRLOCK_EXTENSION_SETUP_FAILED' });
    expect(result.blocked!.message).toContain('No tool may run');
    expect(result.blocked!.message).toContain('rules file missing');
    expect(result.blocked!.fix).toContain(`remove "./policy" from "extensions" in ${file}`);
    // The failed policy handler is gone; the other extension still loaded (the host refuses to run tools).
    expect(kernel.status().handlers).toEqual([]);
    expect(result.loaded.map((e) => e.name)).toEqual(['tool']);
  });

  it('blocks when a policy extension fails before registering, if its manifest declares policy hooks', async () => {
    const root = tempDir();
    writePackage(join(root, 'redactor'), {
      name: 'redactor',
      provides: { hooks: ['tool_result:redact'] },
      files: { 'src/index.ts': `import './missing.js';\nexport default { name: 'redactor', setup() {} };\n` },
    });
    writePackage(join(root, 'approver'), {
      name: 'approver',
      kernel: '^9.0.0',
      provides: { hooks: ['tool_call:approve'] },
      files: { 'src/index.ts': `export default { name: 'approver', setup() {} };\n` },
    });
    const { result } = await load(root, [entry('./redactor', root), entry('./approver', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_IMPORT_FAILED', 'AIRLOCK_EXTENSION_INCOMPATIBLE']);
    expect(result.blocked?.extensions).toEqual(['redactor', 'approver']);
    expect(result.blocked?.message).toContain('2 policy extensions failed to load');
  });

  it('blocks when a plain tool extension named in settings throws, unless its entry is optional', async () => {
    const root = tempDir();
    writePackage(join(root, 'tool'), {
      name: 'tool',
      files: { 'src/index.ts': `export default { name: 'tool', setup() { throw new Error('nope'); } };\n` },
    });
    const named = await load(root, [entry('./tool', root)], { defaults: false });
    expect(codes(named.result)).toEqual(['AIRLOCK_EXTENSION_SETUP_FAILED']);
    expect(named.result.blocked?.extensions).toEqual(['tool']);
    expect(named.result.blocked?.message).toContain('an extension your settings name failed to load');
    expect(named.result.blocked?.fix).toContain('"optional": true');
    const optional = await load(root, [{ ...entry('./tool', root), optional: true }], { defaults: false });
    expect(codes(optional.result)).toEqual(['AIRLOCK_EXTENSION_SETUP_FAILED']);
    expect(optional.result.blocked).toBeUndefined();
  });

  it('warns when policy handlers are registered without being declared in provides', async () => {
    const root = tempDir();
    writePackage(join(root, 'quiet'), {
      name: 'quiet',
      files: { 'src/index.ts': `export default { name: 'quiet', setup(api: any) { api.on('tool_call', () => undefined, { name: 'x', phase: 'authorize' }); } };\n` },
    });
    const { result } = await load(root, [entry('./quiet', root)], { defaults: false });
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_PROVIDES_MISMATCH']);
    expect(result.diagnostics[0]!.message).toContain('tool_call:authorize');
    expect(result.loaded).toHaveLength(1);
  });
});

describe('the default set', () => {
  it('reports the 12 default extensions as not installed and carries on', async () => {
    const root = tempDir();
    const { kernel, result } = await load(root, undefined);
    expect(result.diagnostics).toHaveLength(12);
    expect(new Set(codes(result))).toEqual(new Set(['AIRLOCK_EXTENSION_NOT_INSTALLED']));
    expect(result.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
    expect(result.diagnostics.map((d) => d.extension)).toEqual([
      '@airlock/tool-read',
      '@airlock/tool-bash',
      '@airlock/tool-edit',
      '@airlock/tool-write',
      '@airlock/tool-grep',
      '@airlock/tool-find',
      '@airlock/tool-ls',
      '@airlock/audit-log',
      '@airlock/path-policy',
      '@airlock/approval',
      '@airlock/redact-secrets',
      '@airlock/telemetry',
    ]);
    expect(result.extensions.every((e) => e.status === 'not-installed')).toBe(true);
    expect(result.blocked).toBeUndefined();
    expect(kernel.registry.size).toBe(0);
  });

  it('loads an installed default extension as builtin, next to the missing ones', async () => {
    const root = tempDir();
    writePackage(join(root, 'builtin', 'tool-read'), { name: '@airlock/tool-read', files: { 'src/index.ts': toolSource('tool-read', 'read') } });
    const { kernel, result } = await load(root, undefined);
    expect(result.loaded.map((e) => e.packageName)).toEqual(['@airlock/tool-read']);
    expect(result.loaded[0]!.source.foundIn).toBe('builtin');
    expect(kernel.registry.get('read')?.source).toBe('builtin');
    expect(result.diagnostics).toHaveLength(11);
  });

  it('a compiled-in (bundled) module replaces jiti only for Airlock’s own package at the same version', async () => {
    const root = tempDir();
    writePackage(join(root, 'builtin', 'tool-read'), { name: '@airlock/tool-read', version: '1.0.0', files: { 'src/index.ts': toolSource('tool-read', 'read', 'from-source:') } });
    const compiled = {
      default: {
        name: 'tool-read',
        setup(api: { registerTool(tool: unknown): void }) {
          api.registerTool({ name: 'read', label: 'read', description: 'compiled in', parameters: { type: 'object', properties: {} }, execute: async () => ({ content: [{ type: 'text', text: 'compiled' }] }) });
        },
      },
    };
    const calls: string[] = [];
    const bundled = (version: string) => ({ '@airlock/tool-read': { version, load: async () => (calls.push(version), compiled) } });

    const same = await load(root, undefined, { bundled: bundled('1.0.0') });
    expect(same.kernel.registry.get('read')?.tool.description).toBe('compiled in');
    expect(same.result.loaded[0]!.source.foundIn).toBe('builtin');
    expect(calls).toEqual(['1.0.0']);

    // Another version on disk than the one compiled in: the package on disk wins, through jiti.
    const other = await load(root, undefined, { bundled: bundled('0.9.0') });
    expect(other.kernel.registry.get('read')?.tool.description).toBe('Echo the text back.');
    expect(calls).toEqual(['1.0.0']);

    // A project's own copy is the project's code, never the compiled one.
    writePackage(join(root, 'node_modules', '@airlock', 'tool-read'), { name: '@airlock/tool-read', version: '1.0.0', files: { 'src/index.ts': toolSource('tool-read', 'read', 'project:') } });
    const project = await load(root, undefined, { bundled: bundled('1.0.0') });
    expect(project.result.loaded[0]!.source.foundIn).toBe('project');
    expect(project.kernel.registry.get('read')?.tool.description).toBe('Echo the text back.');
    expect(calls).toEqual(['1.0.0']);
  });

  it('loads no default set when settings list extensions, even an empty list', async () => {
    const root = tempDir();
    toolPackage(join(root, 'ext'), 'only', 'only_tool');
    const { result } = await load(root, [entry('./ext', root)]);
    expect(result.diagnostics).toEqual([]);
    expect(result.extensions).toHaveLength(1);
    const none = await load(root, []);
    expect(none.result.extensions).toEqual([]);
    expect(none.result.diagnostics).toEqual([]);
  });
});

describe('de-duplication', () => {
  it('loads a package listed twice once, from the higher layer, with its options', async () => {
    const root = tempDir();
    const key = `__airlockDedupe_${Date.now()}`;
    writePackage(join(root, 'ext'), {
      name: 'twice',
      files: {
        'src/index.ts': `import Type from 'typebox';
export default { name: 'twice', options: Type.Object({ who: Type.String() }), setup(_api: unknown, o: { who: string }) { (globalThis as any)[${JSON.stringify(key)}] = o.who; } };
`,
      },
    });
    const { result } = await load(root, [
      entry('./ext', root, { layer: 'cli', options: { who: 'cli' } }),
      entry('./ext', root, { layer: 'user', options: { who: 'user' } }),
    ]);
    expect(codes(result)).toEqual(['AIRLOCK_EXTENSION_LISTED_TWICE']);
    expect(result.diagnostics[0]!.layer).toBe('user');
    expect((globalThis as any)[key]).toBe('cli');
    expect(result.extensions.map((e) => e.status)).toEqual(['loaded', 'skipped']);
    delete (globalThis as any)[key];
  });
});

describe('two kernels in one process', () => {
  it('gives each load fresh extension modules (no shared module state)', async () => {
    const root = tempDir();
    writePackage(join(root, 'counter'), {
      name: 'counter',
      files: {
        'src/index.ts': `import Type from 'typebox';
let loads = 0;
export default { name: 'counter', setup(api: any) {
  loads++;
  api.registerTool({ name: 'count', label: 'c', description: 'd', parameters: Type.Object({}), async execute() { return { content: [{ type: 'text', text: String(loads) }] }; } });
} };
`,
      },
    });
    const a = await load(root, [entry('./counter', root)]);
    const b = await load(root, [entry('./counter', root)]);
    const ra = await a.kernel.executeToolCall({ id: '1', name: 'count', arguments: {} });
    const rb = await b.kernel.executeToolCall({ id: '1', name: 'count', arguments: {} });
    expect(ra.content).toEqual([{ type: 'text', text: '1' }]);
    expect(rb.content).toEqual([{ type: 'text', text: '1' }]);
    expect(a.kernel).not.toBe(b.kernel);
    expect(a.kernel).toBeInstanceOf(Kernel);
  });
});

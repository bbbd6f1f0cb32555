import Type from 'typebox';
import { describe, expect, test } from 'vitest';
import type { AnyAgentTool } from '@airlock/contract';
import { AirlockError, AirlockErrors, isAirlockError, kernelError } from '@airlock/toolkit';
import { ToolRegistry } from '../src/registry.js';
import type { ExclusionCode, SelectOptions, ToolSource } from '../src/registry.js';

function tool(name: string, extra: Record<string, unknown> = {}): AnyAgentTool {
  return {
    name,
    label: `${name} label`,
    description: `The ${name} tool.`,
    parameters: Type.Object({ x: Type.Optional(Type.String()) }),
    execute: async () => ({ content: [{ type: 'text', text: name }] }),
    ...extra,
  } as AnyAgentTool;
}

function caught(fn: () => unknown): AirlockError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AirlockError) return e;
    throw e;
  }
  throw new Error('expected an AirlockError, nothing was thrown');
}

/** read, bash, edit (builtin) · github:create_issue (extension) · echo (sdk). */
function fixture(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(tool('read'), { source: 'builtin' });
  registry.register(tool('bash'), { source: 'builtin' });
  registry.register(tool('edit'), { source: 'builtin' });
  registry.register(tool('github:create_issue'), { source: 'extension', origin: '@acme/github' });
  registry.register(tool('echo'), { source: 'sdk', origin: 'agent.ts' });
  return registry;
}

const names = (xs: readonly { tool: AnyAgentTool }[]) => xs.map((x) => x.tool.name);
const codes = (registry: ToolRegistry, options: SelectOptions, name: string) =>
  registry.select(options).excluded.get(name)?.map((r) => r.code);

describe('register / get / has / list', () => {
  test('keeps registration order and records source and origin', () => {
    const registry = fixture();
    expect(names(registry.list())).toEqual(['read', 'bash', 'edit', 'github:create_issue', 'echo']);
    expect(registry.size).toBe(5);
    expect(registry.has('bash')).toBe(true);
    expect(registry.has('nope')).toBe(false);
    const entry = registry.get('github:create_issue');
    expect(entry?.source).toBe('extension');
    expect(entry?.origin).toBe('@acme/github');
    expect(entry?.overrides).toBeUndefined();
    expect(registry.get('read')).toEqual({ tool: expect.objectContaining({ name: 'read' }), source: 'builtin' });
    expect(Object.isFrozen(entry)).toBe(true);
  });

  test('the returned function unregisters once, and revision tracks every change', () => {
    const registry = new ToolRegistry();
    const r0 = registry.revision;
    const off = registry.register(tool('read'), { source: 'builtin' });
    expect(registry.revision).toBeGreaterThan(r0);
    const r1 = registry.revision;
    off();
    expect(registry.has('read')).toBe(false);
    expect(registry.revision).toBeGreaterThan(r1);
    const r2 = registry.revision;
    off();
    expect(registry.revision).toBe(r2);
    // Once gone, the name is free again and goes to the end of the order.
    registry.register(tool('bash'), { source: 'builtin' });
    registry.register(tool('read'), { source: 'extension' });
    expect(names(registry.list())).toEqual(['bash', 'read']);
  });

  test('accepts every allowed name character and exactly 64 characters', () => {
    const registry = new ToolRegistry();
    for (const name of ['a', 'mcp:github/create_issue', 'fs-read_2', 'x'.repeat(64)]) {
      registry.register(tool(name), { source: 'sdk' });
    }
    expect(registry.size).toBe(4);
  });
});

describe('duplicates and overrides', () => {
  test('a second tool with a taken name is an error naming both sources and the fix', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read'), { source: 'builtin', origin: '@airlock/tools' });
    const e = caught(() => registry.register(tool('read'), { source: 'extension', origin: '@acme/fs' }));
    expect(e.code).toBe('AIRLOCK_TOOL_DUPLICATE');
    expect(e.details).toEqual({
      tool: 'read',
      existing: { source: 'builtin', origin: '@airlock/tools' },
      incoming: { source: 'extension', origin: '@acme/fs' },
    });
    expect(e.message).toContain('"read"');
    expect(e.message).toContain('builtin "@airlock/tools"');
    expect(e.message).toContain('extension "@acme/fs"');
    expect(e.message).toContain('override: true');
    expect(isAirlockError(e)).toBe(true);
    expect(isAirlockError(e, 'AIRLOCK_TOOL_DUPLICATE')).toBe(true);
    expect(isAirlockError(e, 'AIRLOCK_TOOL_INVALID_DEFINITION')).toBe(false);
    // The first registration is untouched.
    expect(registry.get('read')?.source).toBe('builtin');
    expect(registry.size).toBe(1);
  });

  test('without an origin the message still names both sources', () => {
    const registry = new ToolRegistry();
    registry.register(tool('echo'), { source: 'sdk' });
    const e = caught(() => registry.register(tool('echo'), { source: 'extension' }));
    expect(e.message).toMatch(/by sdk \(registered first\) and by extension/);
  });

  test('the existing tool saying override does not let a later one in', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read', { override: true }), { source: 'extension', origin: 'a' });
    expect(() => registry.register(tool('read'), { source: 'extension', origin: 'b' })).toThrow(/defined twice/);
  });

  test('override: true replaces the tool, keeps its place, and records what it replaced', () => {
    const registry = fixture();
    const original = registry.get('bash');
    const mine = tool('bash', { override: true, description: 'Sandboxed bash.' });
    registry.register(mine, { source: 'extension', origin: '@acme/sandbox' });

    const active = registry.get('bash');
    expect(active?.tool).toBe(mine);
    expect(active?.source).toBe('extension');
    expect(active?.overrides).toEqual(original);
    expect(names(registry.list())).toEqual(['read', 'bash', 'edit', 'github:create_issue', 'echo']);
    expect(registry.select().explain('bash')).toBe(
      '"bash" is enabled: extension "@acme/sandbox". It overrides the tool from builtin.',
    );
  });

  test('overrides chain, and removing one restores or forgets the right layer', () => {
    const registry = new ToolRegistry();
    const offBase = registry.register(tool('read'), { source: 'builtin' });
    const offA = registry.register(tool('read', { override: true }), { source: 'extension', origin: 'a' });
    const offB = registry.register(tool('read', { override: true }), { source: 'extension', origin: 'b' });
    expect(registry.get('read')?.origin).toBe('b');
    expect(registry.get('read')?.overrides?.origin).toBe('a');
    expect(registry.get('read')?.overrides?.overrides?.source).toBe('builtin');
    expect(registry.select().explain('read')).toBe(
      '"read" is enabled: extension "b". It overrides the tool from extension "a". It overrides the tool from builtin.',
    );

    offA(); // a shadowed layer disappears from the record, the active tool stays
    expect(registry.get('read')?.origin).toBe('b');
    expect(registry.get('read')?.overrides?.source).toBe('builtin');
    expect(registry.get('read')?.overrides?.overrides).toBeUndefined();

    offB(); // removing the active override brings back what it replaced
    expect(registry.get('read')?.source).toBe('builtin');
    expect(registry.get('read')?.overrides).toBeUndefined();

    offBase();
    expect(registry.has('read')).toBe(false);
  });

  test('override: true on a free name simply registers', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read', { override: true }), { source: 'extension' });
    expect(registry.get('read')?.overrides).toBeUndefined();
  });
});

describe('invalid definitions', () => {
  test('every problem is listed, with the tool and its origin', () => {
    const registry = new ToolRegistry();
    const bad = {
      name: 'Read File',
      label: '',
      description: '   ',
      parameters: Type.String(),
      execute: 'run',
      executionMode: 'serial',
      replay: 'always',
      override: 'yes',
      prepareArguments: 42,
      resources: {},
    };
    const e = caught(() => registry.register(bad as unknown as AnyAgentTool, { source: 'extension', origin: '@acme/broken' }));
    expect(e.code).toBe('AIRLOCK_TOOL_INVALID_DEFINITION');
    const problems = e.details.problems as string[];
    expect(problems).toHaveLength(10);
    const expected = [
      /^name "Read File" may only contain lowercase letters.*"read_file"/,
      /^label must be a non-empty string/,
      /^description must be a non-empty string/,
      /^parameters must describe an object \(type "object"\), got type "string"/,
      /^execute must be a function/,
      /^prepareArguments must be a function/,
      /^resources must be a function/,
      /^executionMode must be "parallel" or "sequential", got "serial"/,
      /^replay must be "never" or "safe", got "always"/,
      /^override must be a boolean/,
    ];
    expected.forEach((pattern, i) => expect(problems[i]).toMatch(pattern));
    expect(e.details).toMatchObject({ tool: 'Read File', source: 'extension', origin: '@acme/broken' });
    expect(e.message).toContain('Tool "Read File" from extension "@acme/broken" was not registered');
    expect(e.message).toContain('10 problems');
    for (const p of problems) expect(e.message).toContain(`  - ${p}`);
    expect(registry.size).toBe(0);
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['a name over 64 characters', { name: 'x'.repeat(65) }, /name is 65 characters long; the limit is 64/],
    ['a missing name', { name: undefined }, /name must be a non-empty string/],
    ['an uppercase name', { name: 'Read' }, /may only contain lowercase/],
    ['a space in the name', { name: 'read file' }, /may only contain lowercase/],
    ['missing parameters', { parameters: undefined }, /parameters must be a JSON Schema object/],
    ['array parameters', { parameters: [] }, /parameters must be a JSON Schema object/],
    ['parameters without type', { parameters: { properties: {} } }, /type "object"\), got type undefined/],
    ['properties that are not an object', { parameters: { type: 'object', properties: [] } }, /parameters.properties must be an object/],
    ['a bigint in the schema', { parameters: { type: 'object', maximum: 10n } }, /plain JSON.*parameters.maximum is a bigint/],
    ['NaN in the schema', { parameters: { type: 'object', minProperties: Number.NaN } }, /plain JSON.*NaN/],
    ['a missing execute', { execute: undefined }, /execute must be a function/],
    ['a non-string label', { label: 7 }, /label must be a non-empty string, got number 7/],
  ])('rejects %s', (_what, extra, pattern) => {
    const registry = new ToolRegistry();
    const e = caught(() => registry.register(tool('ok', extra), { source: 'sdk' }));
    expect(e.code).toBe('AIRLOCK_TOOL_INVALID_DEFINITION');
    expect(e.details.problems).toHaveLength(1);
    expect((e.details.problems as string[])[0]).toMatch(pattern);
  });

  test('rejects a cyclic schema', () => {
    const params: Record<string, unknown> = { type: 'object', properties: {} };
    (params.properties as Record<string, unknown>).self = params;
    const e = caught(() => new ToolRegistry().register(tool('ok', { parameters: params }), { source: 'sdk' }));
    expect((e.details.problems as string[])[0]).toMatch(/parameters.properties.self refers back to one of its parents/);
  });

  test('rejects something that is not a tool, and a bad source', () => {
    const e = caught(() => new ToolRegistry().register(null as unknown as AnyAgentTool, { source: 'plugin' as ToolSource }));
    expect(e.details.tool).toBe('<unnamed>');
    expect(e.details.problems).toEqual([
      'source must be one of "builtin", "extension", "sdk", got "plugin"',
      'a tool must be an object, got null',
    ]);
  });
});

describe('select', () => {
  test('no options: every tool, in registration order, nothing left out', () => {
    const s = fixture().select();
    expect(names(s.enabled)).toEqual(['read', 'bash', 'edit', 'github:create_issue', 'echo']);
    expect([...s.enabledNames]).toEqual(names(s.enabled));
    expect(s.excluded.size).toBe(0);
    expect(s.warnings).toEqual([]);
  });

  test('the allowlist is strict over every source and keeps registration order (#2835)', () => {
    const registry = fixture();
    const s = registry.select({ tools: ['echo', 'bash'] });
    expect(names(s.enabled)).toEqual(['bash', 'echo']);
    expect(s.excluded.get('github:create_issue')).toEqual([{ code: 'not_in_allowlist', text: 'not in the allowlist (tools: echo, bash)' }]);
    expect(s.has('read')).toBe(false);
  });

  test('an empty allowlist enables nothing (#2835)', () => {
    const s = fixture().select({ tools: [] });
    expect(s.enabled).toEqual([]);
    expect(s.excluded.size).toBe(5);
    for (const reasons of s.excluded.values()) {
      expect(reasons).toEqual([{ code: 'not_in_allowlist', text: 'the allowlist is empty (tools: [])' }]);
    }
  });

  test('noTools enables nothing, even with an allowlist', () => {
    const registry = fixture();
    expect(registry.select({ noTools: true }).enabled).toEqual([]);
    expect(codes(registry, { noTools: true }, 'echo')).toEqual(['no_tools']);
    const s = registry.select({ noTools: true, tools: ['read'] });
    expect(s.enabled).toEqual([]);
    expect(s.excluded.get('read')?.map((r) => r.code)).toEqual(['no_tools']);
    expect(s.excluded.get('bash')?.map((r) => r.code)).toEqual(['no_tools', 'not_in_allowlist']);
  });

  test('noBuiltinTools keeps extension and SDK tools (#3592)', () => {
    const registry = fixture();
    const s = registry.select({ noBuiltinTools: true });
    expect(names(s.enabled)).toEqual(['github:create_issue', 'echo']);
    expect(s.excluded.get('read')).toEqual([{ code: 'no_builtin_tools', text: 'built-in tools are off (noBuiltinTools)' }]);
    // The built-ins stay registered.
    expect(registry.has('read')).toBe(true);
  });

  test('noBuiltinTools looks at the active registration: an extension override of a builtin stays', () => {
    const registry = fixture();
    registry.register(tool('read', { override: true }), { source: 'extension', origin: '@acme/fs' });
    expect(names(registry.select({ noBuiltinTools: true }).enabled)).toEqual(['read', 'github:create_issue', 'echo']);
  });

  test('excludeTools wins over the allowlist (#5109)', () => {
    const registry = fixture();
    const s = registry.select({ tools: ['read', 'bash'], excludeTools: ['bash'] });
    expect(names(s.enabled)).toEqual(['read']);
    expect(s.excluded.get('bash')).toEqual([{ code: 'excluded', text: 'listed in excludeTools' }]);
    expect(names(registry.select({ excludeTools: ['github:create_issue'] }).enabled)).toEqual(['read', 'bash', 'edit', 'echo']);
  });

  test('denyTools removes a tool; a deny rule for an unknown tool is silent', () => {
    const registry = fixture();
    const s = registry.select({ denyTools: ['bash', 'rm_rf'] });
    expect(names(s.enabled)).toEqual(['read', 'edit', 'github:create_issue', 'echo']);
    expect(s.excluded.get('bash')).toEqual([{ code: 'denied', text: 'denied by a policy rule (denyTools)' }]);
    expect(s.warnings).toEqual([]);
  });

  test('lists every reason that applies, in a fixed order', () => {
    const s = fixture().select({ noTools: true, tools: ['echo'], noBuiltinTools: true, excludeTools: ['read'], denyTools: ['read'] });
    expect(s.excluded.get('read')?.map((r) => r.code)).toEqual(['no_tools', 'not_in_allowlist', 'no_builtin_tools', 'excluded', 'denied']);
    expect(s.explain('read')).toBe(
      '"read" (builtin) is left out: all tools are off (noTools); not in the allowlist (tools: echo); ' +
        'built-in tools are off (noBuiltinTools); listed in excludeTools; denied by a policy rule (denyTools).',
    );
  });

  test('every combination of options: a tool is enabled exactly when no rule leaves it out', () => {
    const registry = fixture();
    const all = registry.list();
    const allowlists = [undefined, [], ['read', 'github:create_issue']];
    let checked = 0;
    for (const tools of allowlists)
      for (const noTools of [false, true])
        for (const noBuiltinTools of [false, true])
          for (const excludeTools of [[], ['read', 'echo']])
            for (const denyTools of [[], ['github:create_issue', 'bash']]) {
              const s = registry.select({ tools, noTools, noBuiltinTools, excludeTools, denyTools });
              for (const { tool: t, source } of all) {
                const expected: ExclusionCode[] = [];
                if (noTools) expected.push('no_tools');
                if (tools !== undefined && !tools.includes(t.name)) expected.push('not_in_allowlist');
                if (noBuiltinTools && source === 'builtin') expected.push('no_builtin_tools');
                if (excludeTools.includes(t.name)) expected.push('excluded');
                if (denyTools.includes(t.name)) expected.push('denied');
                expect(s.has(t.name)).toBe(expected.length === 0);
                expect(s.enabledNames.has(t.name)).toBe(expected.length === 0);
                expect(s.excluded.get(t.name)?.map((r) => r.code) ?? []).toEqual(expected);
                checked++;
              }
              expect(s.enabled.length + s.excluded.size).toBe(all.length);
            }
    expect(checked).toBe(3 * 2 * 2 * 2 * 2 * all.length);
  });

  test('unknown names in tools and excludeTools warn with suggestions', () => {
    const s = fixture().select({ tools: ['raed', 'bash', 'create-issue', 'raed'], excludeTools: ['bassh', 'zzzz'] });
    expect(s.diagnostics.map((d) => d.details)).toEqual([
      { name: 'raed', option: 'tools', candidates: ['read'] },
      { name: 'create-issue', option: 'tools', candidates: ['github:create_issue'] },
      { name: 'bassh', option: 'excludeTools', candidates: ['bash'] },
      { name: 'zzzz', option: 'excludeTools', candidates: [] },
    ]);
    expect(s.diagnostics.every((d) => d.code === 'AIRLOCK_SELECTION_UNKNOWN_TOOL')).toBe(true);
    expect(s.warnings).toEqual(s.diagnostics.map((d) => d.message));
    expect(s.warnings[0]).toBe(
      'Tool "raed" in `tools` matches no registered tool, so the allowlist enables nothing for it. ' +
        'Did you mean "read"? Fix: correct the name, or load the extension that provides the tool.',
    );
    expect(s.warnings[2]).toContain('so excluding it has no effect');
    expect(s.warnings[3]).toContain('No registered tool has a similar name.');
    // The known name still counts.
    expect(names(s.enabled)).toEqual(['bash']);
  });

  test('the warning text is the catalogue entry, so hosts can also throw it', () => {
    const details = { name: 'raed', option: 'tools' as const, candidates: ['read'] };
    const e = kernelError('AIRLOCK_SELECTION_UNKNOWN_TOOL', details);
    expect(e.message).toBe(fixture().select({ tools: ['raed'] }).warnings[0]);
    expect(e.message).toBe(AirlockErrors.AIRLOCK_SELECTION_UNKNOWN_TOOL.render(details));
    expect(isAirlockError(e, 'AIRLOCK_SELECTION_UNKNOWN_TOOL')).toBe(true);
  });

  test('is a snapshot: later registrations and removals do not change it', () => {
    const registry = fixture();
    const s = registry.select({ excludeTools: ['edit'] });
    const offLate = registry.register(tool('late'), { source: 'sdk' });
    registry.register(tool('read', { override: true }), { source: 'extension', origin: 'x' });
    offLate();
    expect(names(s.enabled)).toEqual(['read', 'bash', 'github:create_issue', 'echo']);
    expect(s.has('late')).toBe(false);
    expect(s.get('read')?.source).toBe('builtin');
    expect(Object.isFrozen(s.enabled)).toBe(true);
    expect(registry.select().get('read')?.source).toBe('extension');
  });

  test('get and has answer by name for enabled tools only', () => {
    const s = fixture().select({ excludeTools: ['bash'] });
    expect(s.get('read')?.tool.name).toBe('read');
    expect(s.get('bash')).toBeUndefined();
    expect(s.get('nope')).toBeUndefined();
    expect(s.has('echo')).toBe(true);
  });

  test('explain covers enabled, left-out and unknown names', () => {
    const s = fixture().select({ tools: ['read', 'echo', 'github:create_issue'] });
    expect(s.explain('echo')).toBe('"echo" is enabled: sdk "agent.ts".');
    expect(s.explain('github:create_issue')).toBe('"github:create_issue" is enabled: extension "@acme/github".');
    expect(s.explain('bash')).toBe('"bash" (builtin) is left out: not in the allowlist (tools: read, echo, github:create_issue).');
    expect(s.explain('raed')).toBe('"raed" is not a registered tool. Did you mean "read"?');
    expect(s.explain('deploy')).toBe('"deploy" is not a registered tool.');
  });
});

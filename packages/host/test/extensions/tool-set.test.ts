import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineExtension, type AgentTool, type ExtensionAPI, type ToolSet } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { openHost, type Host } from '../../src/index.js';

/**
 * api.toolSet: the one registration that stays open after setup (an MCP server's tools/list_changed).
 * Real hosts, real default policy; the set is driven from the test after the host opened.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function tool(name: string, reply: string): AgentTool {
  return {
    name,
    label: name,
    description: `answers ${reply}`,
    parameters: Type.Object({ n: Type.Optional(Type.Integer()) }),
    execute: async () => ({ content: [{ type: 'text', text: reply }] }),
  };
}

async function hostWithSet(settings: Record<string, unknown> = {}, options: { failSetup?: boolean } = {}) {
  const root = makeTempDir('airlock-toolset-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const lines: string[] = [];
  let set: ToolSet | undefined;
  let api: ExtensionAPI | undefined;
  const ext = defineExtension({
    name: 'dyn',
    setup(a) {
      api = a;
      set = a.toolSet!('src');
      set.replace([tool('dyn__one', 'one')]);
      if (options.failSetup) throw new Error('setup broke');
    },
  });
  const host = await openHost({
    cwd: project,
    interactive: false,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH },
    homeDir: home,
    log: (l) => void lines.push(l),
    settings: settings as never,
    modules: [{ extension: ext, optional: true }],
  });
  hosts.push(host);
  return { host, set: set!, api: api!, lines };
}

const run = (host: Host, name: string) => host.execute({ id: name, name, arguments: {} });
const text = (m: Awaited<ReturnType<typeof run>>) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('api.toolSet', () => {
  it('replaces its tools after setup: added ones run, removed ones are not found, each change is logged', async () => {
    const { host, set, lines } = await hostWithSet();
    expect(text(await run(host, 'dyn__one'))).toBe('one');
    const change = set.replace([tool('dyn__two', 'two')]);
    expect(change).toEqual({ added: ['dyn__two'], removed: ['dyn__one'], replaced: [], refused: [] });
    expect(text(await run(host, 'dyn__two'))).toBe('two');
    expect((await run(host, 'dyn__one')).outcome).toBe('not_found');
    expect(host.selection.has('dyn__two')).toBe(true);
    expect(lines.join('\n')).toContain('[dyn] tool set "src": added dyn__two; removed dyn__one');
  });

  it('a tool added later is judged by the rules like any other (deny rule → denied, never run)', async () => {
    const { host, set } = await hostWithSet({ permissions: { deny: [{ match: 'dyn__late', reason: 'not this one' }] } });
    set.replace([tool('dyn__one', 'one'), tool('dyn__late', 'ran')]);
    const late = await run(host, 'dyn__late');
    expect(late.outcome).not.toBe('ok');
    expect(text(late)).not.toContain('ran');
  });

  it('cannot take a name another extension holds: that tool is refused, the built-in stays', async () => {
    const { host, set, lines } = await hostWithSet();
    const change = set.replace([tool('read', 'hijacked'), tool('dyn__one', 'one')]);
    expect(change.refused.map((r) => r.name)).toEqual(['read']);
    expect(host.kernel.registry.get('read')!.origin).toMatch(/tool-read/);
    expect(lines.join('\n')).toMatch(/tool "read" refused/);
  });

  it('a failed setup removes the set’s tools, and the set refuses later changes', async () => {
    const { host, set } = await hostWithSet({}, { failSetup: true });
    expect(host.kernel.registry.has('dyn__one')).toBe(false);
    const change = set.replace([tool('dyn__again', 'x')]);
    expect(change.refused.map((r) => r.name)).toEqual(['dyn__again']);
    expect(host.kernel.registry.has('dyn__again')).toBe(false);
  });

  it('is created during setup only, like every other registration', async () => {
    const { api } = await hostWithSet();
    expect(() => api.toolSet!('later')).toThrow(/after its setup finished/);
  });
});

describe('host.onToolsChanged', () => {
  it('tells once per replace of the enabled set, with the new selection; a change the settings leave out, or none at all, is not told', async () => {
    const { host, set } = await hostWithSet({ tools: { exclude: ['dyn__hidden'] } });
    const told: string[][] = [];
    const off = host.onToolsChanged((selection) => void told.push(selection.enabled.map((e) => e.tool.name).filter((n) => n.startsWith('dyn__'))));
    const settle = () => new Promise((r) => setTimeout(r, 0));

    const two = tool('dyn__two', 'two');
    const three = tool('dyn__three', '3');
    set.replace([two, three]); // one remove, two adds: one change
    await settle();
    expect(told).toEqual([['dyn__two', 'dyn__three']]);

    set.replace([two, three, tool('dyn__hidden', 'h')]); // only an excluded tool added
    await settle();
    expect(told).toHaveLength(1);

    set.replace([tool('dyn__two', 'two again'), three, tool('dyn__hidden', 'h')]); // a definition replaced under its name
    await settle();
    expect(told).toHaveLength(2);

    off();
    set.replace([]);
    await settle();
    expect(told).toHaveLength(2);
  });

  it('a listener that throws is logged; the others still hear of the change', async () => {
    const { host, set, lines } = await hostWithSet();
    let heard = 0;
    host.onToolsChanged(() => {
      throw new Error('listener broke');
    });
    host.onToolsChanged(() => void heard++);
    set.replace([tool('dyn__two', 'two')]);
    await new Promise((r) => setTimeout(r, 0));
    expect(heard).toBe(1);
    expect(lines.join('\n')).toContain('tools-changed listener failed: listener broke');
  });
});

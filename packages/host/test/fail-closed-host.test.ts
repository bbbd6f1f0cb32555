import { createTestHost } from '@airlock/kernel/testing';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { type ToolResultMessage } from '@airlock/contract';
import { loadExtensions, openHost, type Host } from '../src/index.js';
import { entry, removeTempDirs, tempDir, writePackage } from './extensions/fixtures.js';

/**
 * Fail closed through the library, as an SDK user (or a future RPC/MCP server) calls it: a host
 * whose settings list a policy extension that did not load refuses every call, on every entry
 * point, with a result that names the extension and the fix. Real extension packages, a real
 * settings file, a tool whose side effect is a real file.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

/** A machine of its own: a project folder, a home with XDG config, and the extension packages. */
function world() {
  const root = tempDir('airlock-failclosed-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const seen = join(root, 'seen.log');
  // `mark` writes the file it is given: if that file exists, a tool ran.
  const marker = writePackage(join(root, 'exts', 'marker'), {
    name: 'marker',
    provides: { tools: ['mark'] },
    files: {
      'src/index.ts': `import Type from 'typebox';
import { writeFileSync } from 'node:fs';
export default { name: 'marker', setup(api: any) {
  api.registerTool({
    name: 'mark', label: 'Mark', description: 'Write a file.',
    parameters: Type.Object({ file: Type.String(), data: Type.Optional(Type.Unknown()) }),
    async execute(_id: string, p: { file: string }) {
      writeFileSync(p.file, 'ran');
      return { content: [{ type: 'text', text: 'wrote ghp_CONTENTSECRET to ' + p.file }], details: { token: 'ghp_DETAILSECRET' } };
    },
  });
} };
`,
    },
  });
  // An auditor: every result it observes becomes a line in seen.log.
  const observer = writePackage(join(root, 'exts', 'observer'), {
    name: 'observer',
    provides: { hooks: ['tool_result:observe'] },
    files: {
      'src/index.ts': `import { appendFileSync } from 'node:fs';
export default { name: 'observer', setup(api: any) {
  api.on('tool_result', (e: any) => { appendFileSync(${JSON.stringify(seen)}, e.toolCallId + ' ' + e.outcome + ' ' + JSON.stringify(e.content) + ' ' + JSON.stringify(e.details ?? null) + '\\n'); }, { name: 'seen', phase: 'observe' });
} };
`,
    },
  });
  const policy = (name: string, body: string, hooks = ['tool_call:authorize'], files: Record<string, string> | undefined = undefined) =>
    writePackage(join(root, 'exts', name), {
      name,
      provides: { hooks },
      files: files ?? { 'src/index.ts': `export default { name: ${JSON.stringify(name)}, ${body} };\n` },
    });
  const open = async (extensions: (string | { path: string; optional: boolean })[], more: { setupTimeoutMs?: number } = {}) => {
    writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: extensions.map((e) => (typeof e === 'string' ? { path: e } : e)) }));
    const host = await openHost({
      cwd: project,
      interactive: false,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
      homeDir: home,
      ...more,
    });
    hosts.push(host);
    return host;
  };
  const seenLines = () => (existsSync(seen) ? readFileSync(seen, 'utf8').trim().split('\n') : []);
  return { root, project, marker, observer, policy, open, seenLines };
}

function text(m: ToolResultMessage): string {
  return m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Every entry point the library offers: host.execute, host.batch, and the kernel it exposes. */
async function callEveryWay(host: Host, file: (n: string) => string): Promise<ToolResultMessage[]> {
  const one = await host.execute({ id: 'execute', name: 'mark', arguments: { file: file('a') } });
  const { messages } = await host.batch([
    { id: 'batch-1', name: 'mark', arguments: { file: file('b') } },
    { id: 'batch-2', name: 'mark', arguments: { file: file('c') } },
  ]);
  const direct = await host.kernel.executeToolCall({ id: 'kernel', name: 'mark', arguments: { file: file('d') } });
  const { messages: directBatch } = await host.kernel.executeBatch([{ id: 'kernel-batch', name: 'mark', arguments: { file: file('e') } }]);
  return [one, ...messages, direct, ...directBatch];
}

describe('a policy extension that failed to load: every call on every entry point is refused', () => {
  const cases: { title: string; make: (w: ReturnType<typeof world>) => string; expectInReason: RegExp; expectInMessage?: string; options?: { setupTimeoutMs: number } }[] = [
    {
      title: 'its setup throws (after registering its handler)',
      make: (w) => w.policy('guard', `setup(api: any) { api.on('tool_call', () => undefined, { name: 'rules', phase: 'authorize' }); throw new Error('rules file is corrupt'); }`),
      expectInReason: /rules file is corrupt/,
    },
    {
      title: 'its setup never finishes',
      make: (w) => w.policy('guard', 'setup() { return new Promise(() => {}); }'),
      expectInReason: /did not finish setup within 300 ms/,
      options: { setupTimeoutMs: 300 },
    },
    {
      title: 'its entry module is missing',
      make: (w) => w.policy('guard', '', ['tool_result:redact'], { 'README.md': 'no src/index.ts here\n' }),
      expectInReason: /entry module/,
    },
    {
      title: 'a module it imports is missing',
      make: (w) => w.policy('guard', '', ['tool_call:approve'], { 'src/index.ts': `import './rules.js';\nexport default { name: 'guard', setup() {} };\n` }),
      expectInReason: /rules/,
    },
    {
      title: 'its package is not there at all (uninstalled: nothing says it is not a policy extension)',
      make: (w) => join(w.root, 'exts', 'guard'),
      expectInReason: /not found|does not exist|no such/i,
      expectInMessage: 'an extension your settings name failed to load',
    },
  ];

  for (const c of cases) {
    it(c.title, async () => {
      const w = world();
      const host = await w.open([w.marker, w.observer, c.make(w)], c.options);
      expect(host.blocked).toBeDefined();
      expect(host.blocked!.extension).toMatch(/guard/);
      expect(host.blocked!.reason).toMatch(c.expectInReason);
      expect(host.blocked!.message).toContain(c.expectInMessage ?? 'a policy extension failed to load');

      const results = await callEveryWay(host, (n) => join(w.project, `${n}.txt`));
      for (const m of results) {
        expect(m).toMatchObject({ role: 'toolResult', outcome: 'denied', isError: true });
        expect(text(m)).toContain('no tool may run in this session');
        expect(text(m)).toMatch(/guard/);
        expect(text(m)).toMatch(c.expectInReason);
        expect(text(m)).toContain('remove');
      }
      expect(results.map((m) => m.toolCallId)).toEqual(['execute', 'batch-1', 'batch-2', 'kernel', 'kernel-batch']);
      // Nothing ran …
      for (const n of ['a', 'b', 'c', 'd', 'e']) expect(existsSync(join(w.project, `${n}.txt`))).toBe(false);
      // … and the auditor saw every refused call.
      expect(w.seenLines().map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
        'execute denied',
        'batch-1 denied',
        'batch-2 denied',
        'kernel denied',
        'kernel-batch denied',
      ]);
    });
  }

  // What a failure costs follows what the manifest says the package brings: tools only → those
  // tools; anything that could be a guard, or a package whose kind cannot be read → everything.
  const kinds = [
    { kind: 'tools only (provides.tools, no hooks)', airlock: { provides: { tools: ['x'] } }, blocks: false },
    { kind: 'no tools and no hooks declared (tools from a tool set, as mcp-tools)', airlock: { provides: { tools: [], hooks: [] } }, blocks: false },
    { kind: 'tools and an observe hook (an auditor may be counted on)', airlock: { provides: { tools: ['x'], hooks: ['tool_result:observe'] } }, blocks: true },
    { kind: 'a manifest without provides (its kind cannot be read)', airlock: {}, blocks: true },
    { kind: 'tools plus airlock.rules (a policy pack)', airlock: { provides: { tools: ['x'] }, rules: { deny: ['fs.read(**/.x)'] } }, blocks: true },
  ] as const;
  for (const k of kinds) {
    it(`a package that fails to set up, ${k.kind}: ${k.blocks ? 'blocks every tool unless optional' : 'costs only its own tools'}`, async () => {
      const w = world();
      const broken = writePackage(join(w.root, 'exts', 'broken'), {
        name: 'broken',
        airlock: { extension: './src/index.ts', kernel: '^1.0.0', ...k.airlock },
        files: { 'src/index.ts': `export default { name: 'broken', setup() { throw new Error('nope'); } };\n` },
      });
      const named = await w.open([w.marker, broken]);
      const first = await named.execute({ id: '0', name: 'mark', arguments: { file: join(w.project, 'first.txt') } });
      if (k.blocks) {
        expect(named.blocked?.extensions).toEqual(['broken']);
        expect(first.outcome).toBe('denied');
        expect(existsSync(join(w.project, 'first.txt'))).toBe(false);
      } else {
        expect(named.blocked).toBeUndefined();
        expect(first.outcome).toBe('ok');
        expect(named.diagnostics.find((d) => d.code === 'AIRLOCK_EXTENSION_SETUP_FAILED')?.message).toContain('nope');
      }
      if (!k.blocks || 'rules' in k.airlock) return;
      const host = await w.open([w.marker, { path: broken, optional: true }]);
      expect(host.blocked).toBeUndefined();
      const m = await host.execute({ id: '1', name: 'mark', arguments: { file: join(w.project, 'ok.txt') } });
      expect(m.outcome).toBe('ok');
      expect(readFileSync(join(w.project, 'ok.txt'), 'utf8')).toBe('ran');
    });
  }

  it('a tools-only package refused before its code runs (kernel range, missing entry module) costs only its tools; a broken manifest blocks', async () => {
    const w = world();
    const files = { 'src/index.ts': `export default { name: 'later', setup() {} };\n` };
    const future = writePackage(join(w.root, 'exts', 'future'), { name: 'future', kernel: '^9.0.0', provides: { tools: ['x'] }, files });
    const noEntry = writePackage(join(w.root, 'exts', 'no-entry'), { name: 'no-entry', provides: { tools: ['y'] }, files: {} });
    const costsTools = await w.open([w.marker, future, noEntry]);
    expect(costsTools.blocked).toBeUndefined();
    expect(costsTools.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(['AIRLOCK_EXTENSION_INCOMPATIBLE', 'AIRLOCK_EXTENSION_ENTRY_NOT_FOUND']));
    expect((await costsTools.execute({ id: '0', name: 'mark', arguments: { file: join(w.project, 'a.txt') } })).outcome).toBe('ok');
    const broken = writePackage(join(w.root, 'exts', 'bad-manifest'), { name: 'bad-manifest', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: 'tools' }, files });
    const blocked = await w.open([w.marker, broken]);
    expect(blocked.blocked?.extensions).toEqual(['bad-manifest']);
  });
});

describe('an SDK user composing createKernel and loadExtensions', () => {
  it('the kernel refuses every call once loadExtensions reports blocked, without the caller checking', async () => {
    const w = world();
    const guard = w.policy('guard', `setup() { throw new Error('rules file is corrupt'); }`);
    const { kernel, services } = createTestHost({ cwd: w.project, spill: { dir: join(w.root, 'spill') } });
    const result = await loadExtensions({ entries: [entry(w.marker, w.root), entry(guard, w.root)], kernel, services, trust: { trusted: false }, defaults: false, cwd: w.project });
    expect(result.blocked?.extension).toBe('guard');
    const file = join(w.project, 'sdk.txt');
    const m = await kernel.executeToolCall({ id: 's', name: 'mark', arguments: { file } });
    expect(m.outcome).toBe('denied');
    expect(text(m)).toContain('rules file is corrupt');
    expect(existsSync(file)).toBe(false);
    await kernel.dispose();
  });
});

describe('policy handlers that fail at call time (the extension loaded)', () => {
  it('an authorize handler that throws: that call is denied, naming the handler; nothing runs', async () => {
    const w = world();
    const guard = w.policy('guard', `setup(api: any) { api.on('tool_call', () => { throw new Error('policy database offline'); }, { name: 'check', phase: 'authorize' }); }`);
    const host = await w.open([w.marker, guard]);
    expect(host.blocked).toBeUndefined();
    const results = await callEveryWay(host, (n) => join(w.project, `${n}.txt`));
    for (const m of results) {
      expect(m.outcome).toBe('denied');
      expect(text(m)).toContain('guard/check');
      expect(text(m)).toContain('policy database offline');
    }
    for (const n of ['a', 'b', 'c', 'd', 'e']) expect(existsSync(join(w.project, `${n}.txt`))).toBe(false);
  });

  it('a redact handler that throws: the tool ran, but the outcome is error and neither content nor details leak; audit sees the call', async () => {
    const w = world();
    const redactor = w.policy('scrubber', `setup(api: any) { api.on('tool_result', (e: any) => { JSON.parse(e.content[0].text); }, { name: 'scrub', phase: 'redact' }); }`, ['tool_result:redact']);
    const host = await w.open([w.marker, redactor, w.observer]);
    const m = await host.execute({ id: 'r', name: 'mark', arguments: { file: join(w.project, 'r.txt') } });
    expect(readFileSync(join(w.project, 'r.txt'), 'utf8')).toBe('ran');
    expect(m).toMatchObject({ outcome: 'error', isError: true });
    expect(m.details).toBeUndefined();
    expect(JSON.stringify(m)).not.toMatch(/CONTENTSECRET|DETAILSECRET/);
    expect(text(m)).toContain('withheld');
    expect(text(m)).toContain('scrubber/scrub');
    const lines = w.seenLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^r error /);
    expect(lines[0]).not.toMatch(/CONTENTSECRET|DETAILSECRET/);
  });
});

describe('deep arguments through the real host', () => {
  it('200,000 levels: invalid with a message about depth, nothing runs, the auditor sees the call', async () => {
    const w = world();
    const host = await w.open([w.marker, w.observer]);
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown;
    const file = join(w.project, 'deep.txt');
    const m = await host.execute({ id: 'deep', name: 'mark', arguments: { file, data: deep } });
    expect(m.outcome).toBe('invalid');
    expect(text(m)).toMatch(/nest deeper than 100 levels/);
    expect(text(m)).not.toContain('Maximum call stack');
    expect(existsSync(file)).toBe(false);
    expect(w.seenLines().map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['deep invalid']);
    // The same call, flat, runs.
    const ok = await host.execute({ id: 'flat', name: 'mark', arguments: { file, data: [[1]] } });
    expect(ok.outcome).toBe('ok');
    expect(readFileSync(file, 'utf8')).toBe('ran');
  });
});

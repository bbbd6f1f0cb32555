import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { buildCatalog, renderCatalog } from '../src/extensions/catalog.js';
import { optionRows, typeText } from '../src/extensions/option-rows.js';
import { fakeRegistry, PUBLISHED } from './fake-registry.js';
import { testIO } from './test-io.js';

/**
 * `airlock extensions catalog`: docs/catalog.md is what the workspace's manifests and options
 * schemas say (a stale file fails this test), a package added under extensions/ shows up with
 * no code change, and a package whose module cannot be read fails the command (exit 2).
 */

// Imports every extension module of the workspace through jiti (cold cache: several seconds).
vi.setConfig({ testTimeout: scaledMs(120_000) });

const ROOT = join(import.meta.dirname, '../../..');

/** A workspace of its own: pnpm-workspace.yaml and the given files. */
function workspace(files: Record<string, string | object>) {
  const base = makeTempDir('airlock-catalog-');
  const root = join(base, 'ws');
  const home = join(base, 'home');
  mkdirSync(home, { recursive: true });
  const all: Record<string, string | object> = { 'pnpm-workspace.yaml': 'packages:\n  - extensions/tools/*\n  - extensions/policy/*\n  - extensions/lib/*\n  - "examples/*"\n', ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  mkdirSync(join(root, 'docs'), { recursive: true });
  const airlock = async (args: string[]) => {
    const io = testIO(join(root, 'extensions'), home);
    const code = await run(['--trust', ...args], io);
    return { code, out: io.out(), err: io.err() };
  };
  const untrusted = async (args: string[]) => {
    const io = testIO(join(root, 'extensions'), home);
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  return { root, airlock, untrusted };
}

const manifest = (name: string, airlock: object, extra: object = {}) => ({ name, version: '0.3.0', type: 'module', ...extra, ...(airlock ? { airlock } : {}) });

describe('docs/catalog.md', () => {
  it('is what `airlock extensions catalog --write` makes from the manifests today (run it after changing a package)', async () => {
    const fresh = renderCatalog(await buildCatalog(ROOT));
    const committed = readFileSync(join(ROOT, 'docs/catalog.md'), 'utf8');
    expect(committed, 'docs/catalog.md is stale: run `pnpm airlock --trust extensions catalog --write`').toBe(fresh);
    // Every extension package of the workspace is in it, with its options from its schema.
    expect(fresh).toContain('## @airlock/tool-read');
    expect(fresh).toContain('| `timeoutMs` | `integer` | `300000` | A prompt left unanswered this long is a deny. |');
  });
});

describe('airlock extensions catalog', () => {
  it('lists a package added under extensions/ with its kind, range, tools, hooks and options, with no code change', async () => {
    const w = workspace({
      'extensions/tools/shout/package.json': manifest('@acme/shout', { extension: './src/index.ts', kernel: '^1.2.0', provides: { tools: ['shout'], hooks: [] }, description: 'Adds shout.' }),
      'extensions/tools/shout/src/index.ts': `import Type from 'typebox';
export default { name: 'shout', options: Type.Object({ level: Type.Union([Type.Literal(1), Type.Literal(2)], { default: 1, description: 'how loud' }), words: Type.Optional(Type.Array(Type.String())) }, { required: ['level'] }), setup() {} };`,
      'extensions/policy/guard/package.json': manifest('@acme/guard', { extension: './src/index.ts', kernel: '^1.0.0', provides: { hooks: ['tool_call:authorize'] } }),
      'extensions/policy/guard/src/index.ts': `import Type from 'typebox';
export default { name: 'guard', options: Type.Object({ pattern: Type.String({ description: 'what | to deny' }) }), setup() {} };`,
      'extensions/lib/helpers/package.json': { name: '@acme/helpers', version: '1.0.0', description: 'Shared code.' },
      // Examples are private packages: not part of the catalog.
      'examples/demo/package.json': manifest('demo', { extension: './i.ts', kernel: '^1.0.0' }, { private: true }),
    });
    const r = await w.airlock(['extensions', 'catalog']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('| [@acme/shout](#acmeshout) | tool | `^1.2.0` | tool `shout` | Adds shout. |');
    expect(r.out).toContain('| [@acme/guard](#acmeguard) | policy | `^1.0.0` | `tool_call:authorize` |');
    expect(r.out).toContain('| [@acme/helpers](#acmehelpers) | library |');
    expect(r.out).toContain('| `level` | `1 \\| 2` | `1` | how loud |');
    expect(r.out).toContain('| `words` | `string[]` |  |  |');
    expect(r.out).toContain('| `pattern` | `string` | required | what \\| to deny |');
    expect(r.out).not.toContain('demo');

    const json = await w.airlock(['--json', 'extensions', 'catalog']);
    const data = JSON.parse(json.out) as { packages: { name: string; kind: string; options: { key: string; type: string; default?: unknown; required: boolean }[] }[] };
    expect(data.packages.map((p) => [p.name, p.kind])).toEqual([['@acme/shout', 'tool'], ['@acme/guard', 'policy'], ['@acme/helpers', 'library']]);
    expect(data.packages[0]!.options).toEqual([
      { key: 'level', type: '1 | 2', default: 1, required: false, description: 'how loud' },
      { key: 'words', type: 'string[]', required: false },
    ]);

    // --write puts the same Markdown into docs/catalog.md and prints nothing on stdout.
    const written = await w.airlock(['extensions', 'catalog', '--write']);
    expect(written.code).toBe(0);
    expect(written.out).toBe('');
    expect(readFileSync(join(w.root, 'docs/catalog.md'), 'utf8')).toBe(r.out);
  });

  it('fails (exit 2) naming the package whose module cannot be imported, and still lists the rest', async () => {
    const w = workspace({
      'extensions/tools/broken/package.json': manifest('@acme/broken', { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['b'] } }),
      'extensions/tools/broken/src/index.ts': 'throw new Error("cannot start");\n',
      'extensions/tools/fine/package.json': manifest('@acme/fine', { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['f'] } }),
      'extensions/tools/fine/src/index.ts': 'export default { name: "fine", setup() {} };\n',
    });
    const r = await w.airlock(['extensions', 'catalog']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('@acme/broken: its module ./src/index.ts could not be imported: cannot start');
    expect(r.out).toContain('- Options could not be read:');
    expect(r.out).toContain('## @acme/fine');
  });

  it('untrusted: lists what the manifests say without importing any module, says how to get the options, and refuses --write', async () => {
    const w = workspace({
      'extensions/tools/loud/package.json': manifest('@acme/loud', { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['l'] } }),
      'extensions/tools/loud/src/index.ts': 'import { writeFileSync } from "node:fs";\nwriteFileSync(new URL("../ran", import.meta.url), "");\nexport default { name: "loud", setup() {} };\n',
    });
    const listed = await w.untrusted(['extensions', 'catalog']);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('| [@acme/loud](#acmeloud) | tool | `^1.0.0` | tool `l` |');
    expect(listed.out).toContain('- Options: not read (see above)');
    expect(listed.err).toContain('Options were not read: reading options imports each package\'s module, which runs its code: review the packages, then run the catalog again with --trust.');
    expect(existsSync(join(w.root, 'extensions/tools/loud/ran'))).toBe(false);

    const r = await w.untrusted(['extensions', 'catalog', '--write']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('is not trusted');
    expect(r.err).toContain('airlock trust');
    expect(existsSync(join(w.root, 'extensions/tools/loud/ran'))).toBe(false);
    expect(existsSync(join(w.root, 'docs/catalog.md'))).toBe(false);
    // Trusted, the same module is imported (its top level ran: that is how options are read).
    expect((await w.airlock(['extensions', 'catalog'])).code).toBe(0);
    expect(existsSync(join(w.root, 'extensions/tools/loud/ran'))).toBe(true);
  });

  it('outside a workspace lists the current folder, and says when it holds no extension package', async () => {
    const base = makeTempDir('airlock-catalog-none-');
    const io = testIO(base, base);
    expect(await run(['extensions', 'catalog'], io)).toBe(0);
    expect(io.err()).toContain(`No extension packages in ${base}`);
    const write = testIO(base, base);
    expect(await run(['extensions', 'catalog', '--write'], write)).toBe(2);
    expect(write.err()).toContain('holds no pnpm-workspace.yaml');
    expect(write.err()).toContain('airlock extensions catalog . > catalog.md');
  });
});

/** A folder of its own holding `files`, and the CLI run in it with a home of its own (nothing trusted). */
function loose(files: Record<string, string | object>) {
  const base = makeTempDir('airlock-catalog-loose-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  const airlock = async (args: string[], env: Record<string, string> = {}) => {
    const io = testIO(base, join(base, 'home'));
    io.env = { ...io.env, PATH: process.env.PATH, npm_config_cache: join(base, 'npm-cache'), npm_config_update_notifier: 'false', ...env };
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  return { base, airlock };
}

const RUNS = 'import { writeFileSync } from "node:fs";\nwriteFileSync(new URL("../ran", import.meta.url), "");\n';
const GUARD = {
  'node_modules/@acme/guard/package.json': manifest('@acme/guard', { extension: './src/index.js', kernel: '^1.0.0', provides: { hooks: ['tool_call:authorize'] }, description: 'Denies pushes.' }, { keywords: ['airlock-extension'] }),
  'node_modules/@acme/guard/src/index.js': `${RUNS}export default { name: 'guard', options: { type: 'object', properties: { branch: { type: 'string', default: 'main', description: 'the branch' } } }, setup() {} };\n`,
  'node_modules/airlock-shout/package.json': manifest('airlock-shout', { extension: './src/index.js', kernel: '^9.0.0', provides: { tools: ['shout'] } }),
  'node_modules/airlock-shout/src/index.js': `${RUNS}export default { name: 'shout', setup() {} };\n`,
  // Not an extension: left out.
  'node_modules/left-pad/package.json': { name: 'left-pad', version: '1.3.0' },
};

describe('airlock extensions catalog on any folder, tarball or registry', () => {
  it('a project (its node_modules) without trust: every manifest, no module run, and how to get the options', async () => {
    const p = loose({ 'package.json': { name: 'my-agent', version: '1.0.0' }, ...GUARD });
    const r = await p.airlock(['extensions', 'catalog']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`2 extension packages from the folder \`${p.base}\``);
    expect(r.out).toContain('| [airlock-shout](#airlock-shout) | tool | `^9.0.0` | tool `shout` |');
    expect(r.out).toContain('| [@acme/guard](#acmeguard) | policy | `^1.0.0` | `tool_call:authorize` | Denies pushes. |');
    expect(r.out).toContain('policy · version 0.3.0 · kernel `^1.0.0` · `node_modules/@acme/guard`');
    expect(r.out).not.toContain('left-pad');
    expect(r.err).toContain('Options were not read');
    expect(r.err).toContain('--trust');
    expect(existsSync(join(p.base, 'node_modules/@acme/guard/ran'))).toBe(false);

    // A single package folder, with --trust: its options, read from its module.
    const one = await p.airlock(['--trust', '--json', 'extensions', 'catalog', 'node_modules/@acme/guard']);
    expect(one.code, one.err).toBe(0);
    const data = JSON.parse(one.out) as { source: { kind: string }; optionsRead: boolean; packages: { name: string; dir: string; options: { key: string; default?: unknown }[] }[] };
    expect(data.source.kind).toBe('folder');
    expect(data.optionsRead).toBe(true);
    expect(data.packages.map((x) => [x.name, x.dir, x.options.map((o) => [o.key, o.default])])).toEqual([['@acme/guard', '.', [['branch', 'main']]]]);
  });

  it('a tarball made by npm pack, without trust: unpacked with tar, its manifest listed, nothing run or installed', async () => {
    const p = loose(GUARD);
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', p.base], { cwd: join(p.base, 'node_modules/@acme/guard'), env: { ...process.env, npm_config_cache: join(p.base, 'npm-cache'), npm_config_update_notifier: 'false' }, stdio: 'ignore' });
    const r = await p.airlock(['extensions', 'catalog', 'acme-guard-0.3.0.tgz']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`1 extension package from the tarball \`${join(p.base, 'acme-guard-0.3.0.tgz')}\``);
    expect(r.out).toContain('policy · version 0.3.0 · kernel `^1.0.0` · `acme-guard-0.3.0.tgz`');
    expect(r.out).toContain('- Options: not read (see above)');
    expect(r.err).toContain('Options were not read');
    const trusted = await p.airlock(['--trust', 'extensions', 'catalog', 'acme-guard-0.3.0.tgz']);
    expect(trusted.code, trusted.err).toBe(0);
    expect(trusted.out).toContain('| `branch` | `string` | `"main"` | the branch |');
  });

  it('--registry: the registry search results, manifests only', async () => {
    const registry = await fakeRegistry(PUBLISHED);
    onTestFinished(registry.close);
    const p = loose({});
    const r = await p.airlock(['extensions', 'catalog', '--registry', 'guard'], { npm_config_registry: registry.url });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`2 extension packages from the registry \`${registry.url}\``);
    expect(r.out).toContain('| [@acme/airlock-guard](#acmeairlock-guard) | policy | `^1.0.0` | `tool_call:authorize` |');
    expect(r.out).toContain(`tool · version 0.3.0 · kernel \`^9.0.0\` · \`${registry.url}airlock-shout\``);
    expect(r.err).toContain("a registry's documents hold the manifest, not the code");
    const write = await p.airlock(['extensions', 'catalog', '--registry', '--write'], { npm_config_registry: registry.url });
    expect(write.code).toBe(2);
    expect(write.err).toContain('it does not go with --registry');
    const gone = loose({});
    await registry.close();
    const down = await gone.airlock(['extensions', 'catalog', '--registry', 'guard'], { npm_config_registry: registry.url });
    expect(down.code).toBe(2);
    expect(down.err).toContain(`The npm registry ${registry.url} could not be reached`);
  });
});

describe('option types in words', () => {
  it('reads unions, records, arrays of unions and nested objects', async () => {
    const { default: Type } = await import('typebox');
    expect(typeText(Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')])))).toBe('("a" | "b")[]');
    expect(typeText(Type.Record(Type.String(), Type.Number()))).toBe('Record<string, number>');
    expect(optionRows(Type.Object({ a: Type.Object({ b: Type.Integer({ default: 3 }) }) })).map((r) => [r.key, r.type, r.default])).toEqual([
      ['a', 'object', undefined],
      ['a.b', 'integer', 3],
    ]);
  });
});

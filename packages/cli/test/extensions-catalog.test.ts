import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { buildCatalog, renderCatalog } from '../src/extensions/catalog.js';
import { optionRows, typeText } from '../src/extensions/option-rows.js';
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

  it('refuses an untrusted workspace without importing any of its modules', async () => {
    const w = workspace({
      'extensions/tools/loud/package.json': manifest('@acme/loud', { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['l'] } }),
      'extensions/tools/loud/src/index.ts': 'import { writeFileSync } from "node:fs";\nwriteFileSync(new URL("../ran", import.meta.url), "");\nexport default { name: "loud", setup() {} };\n',
    });
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

  it('outside a workspace says where to run it', async () => {
    const base = makeTempDir('airlock-catalog-none-');
    const io = testIO(base, base);
    expect(await run(['extensions', 'catalog'], io)).toBe(2);
    expect(io.err()).toContain('No pnpm-workspace.yaml in');
    expect(io.err()).toContain('Run it inside a clone of Airlock');
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

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * `airlock extensions check`, a publisher's check: real npm (pack --dry-run, and an install of a
 * tarball), real packages in temp folders, and a real throwaway host for the dry load.
 */

// npm starts twice per check and a host opens: seconds on a busy 2-core machine.
vi.setConfig({ testTimeout: scaledMs(60_000) });

const TOOL = (body: string) => `export default {
  name: 'words',
  setup(api) {
    api.registerTool({
      name: 'count_words', label: 'Count words', description: 'Count the words of a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      ${body}
      async execute() { return { content: [{ type: 'text', text: '3' }] }; },
    });
  },
};
`;

function pkg(o: { source?: string; files?: string[]; kernel?: string; readme?: boolean; tests?: boolean; keyword?: boolean; dependencies?: Record<string, string> } = {}) {
  const base = makeTempDir('airlock-check-');
  const dir = join(base, 'airlock-words');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'airlock-words', version: '0.3.0', type: 'module', ...(o.keyword === false ? {} : { keywords: ['airlock-extension'] }), ...(o.files === undefined ? {} : { files: o.files }), ...(o.dependencies === undefined ? {} : { dependencies: o.dependencies }), airlock: { extension: './dist/index.js', kernel: o.kernel ?? '^1.0.0', provides: { tools: ['count_words'] } } }),
  );
  writeFileSync(join(dir, 'dist', 'index.js'), o.source ?? TOOL("resources: ({ path }) => [{ kind: 'fs.read', path }],"));
  if (o.readme !== false) writeFileSync(join(dir, 'README.md'), '# airlock-words\n');
  if (o.tests !== false) {
    mkdirSync(join(dir, 'test'));
    writeFileSync(join(dir, 'test', 'words.test.js'), '// a test\n');
  }
  const airlock = async (args: string[]) => {
    const io = testIO(base, join(base, 'home'));
    io.env = { ...io.env, PATH: process.env.PATH, npm_config_cache: join(base, 'npm-cache'), npm_config_update_notifier: 'false' };
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  return { base, dir, airlock };
}

describe('airlock extensions check', () => {
  it('a sound package: every check passes, with what its setup registered, and exit 0', async () => {
    const p = pkg();
    const r = await p.airlock(['extensions', 'check', p.dir]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain('Checking airlock-words 0.3.0');
    expect(r.out).toMatch(/^ok +published files: dist\/index\.js is in the package/m);
    expect(r.out).toMatch(/^ok +dry load: setup ran: tool count_words$/m);
    expect(r.out).toContain('Ready to publish.');
  });

  it('an entry npm would not publish is an error, before anyone installs it', async () => {
    const p = pkg({ files: ['README.md'] });
    const r = await p.airlock(['extensions', 'check', p.dir]);
    expect(r.code).toBe(2);
    expect(r.out).toContain('dist/index.js is not among the files npm would publish');
    expect(r.out).toMatch(/Fix: Add it \(or its folder\) to package\.json "files"/);
  });

  it('warns of a path parameter without resources(), a missing README and missing tests', async () => {
    const p = pkg({ source: TOOL(''), readme: false, tests: false, keyword: false, dependencies: { '@airlock/kernel': '^1.0.0' } });
    const r = await p.airlock(['--json', 'extensions', 'check', p.dir]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { ok: boolean; checks: { what: string; result: string; said: string; fix?: string }[] };
    expect(report.ok).toBe(true);
    const warned = report.checks.filter((c) => c.result === 'warning').map((c) => c.what);
    expect(warned).toEqual(['keyword', 'dependencies', 'README', 'tests', 'dry load']);
    // extensions add would refuse it for a project: said before it is published.
    expect(report.checks.find((c) => c.what === 'dependencies')).toMatchObject({ said: expect.stringContaining('@airlock/kernel is a dependency'), fix: expect.stringContaining('Move @airlock/* to devDependencies') });
    expect(report.checks.find((c) => c.what === 'keyword')?.said).toContain('no "airlock-extension" keyword: `airlock extensions search`');
    expect(report.checks.find((c) => c.what === 'dry load' && c.result === 'warning')?.said).toMatch(/takes "path", which looks like a path, but declares no resources\(\)/);
  });

  it('a setup that throws fails the dry load with the extension’s own error; a refused kernel range is an error', async () => {
    const broken = pkg({ source: "export default { name: 'words', setup() { throw new Error('no rules file at ~/.words.json'); } };\n" });
    const r = await broken.airlock(['extensions', 'check', broken.dir]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^ERROR dry load: .*no rules file at ~\/\.words\.json/m);
    const future = pkg({ kernel: '^9.0.0' });
    const f = await future.airlock(['extensions', 'check', future.dir]);
    expect(f.code).toBe(2);
    expect(f.out).toMatch(/^ERROR kernel range: .*\^9\.0\.0/m);
  });

  it('checks a tarball made by npm pack as it would be installed', async () => {
    const p = pkg();
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', p.base], { cwd: p.dir, env: { ...process.env, npm_config_cache: join(p.base, 'npm-cache'), npm_config_update_notifier: 'false' }, stdio: 'ignore' });
    const r = await p.airlock(['extensions', 'check', join(p.base, 'airlock-words-0.3.0.tgz')]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/^ok +dry load: setup ran: tool count_words$/m);
    expect(r.out).not.toContain('tests:');
  });
});

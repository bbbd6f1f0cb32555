import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PHASES } from '@airlock/kernel';
import { POLICY_PHASES, readManifest } from '../../src/extensions/index.js';
import { removeTempDirs, tempDir, writePackage } from './fixtures.js';

afterAll(removeTempDirs);

const subject = { extension: 'x', layer: 'user' as const };

function manifestOf(airlock: unknown, pkg: Record<string, unknown> = {}) {
  const dir = tempDir();
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', ...pkg, airlock }));
  return readManifest(dir, subject);
}

function problems(result: ReturnType<typeof readManifest>): string[] {
  if (result.ok) return [];
  return (result.diagnostic.details.problems as string[] | undefined) ?? [];
}

describe('readManifest', () => {
  it('reads a complete manifest', () => {
    const r = manifestOf({
      extension: './src/index.ts',
      kernel: '^1.0.0',
      provides: { tools: ['greet'], hooks: ['tool_call:authorize'] },
      description: 'Greets.',
    });
    expect(r).toMatchObject({
      ok: true,
      packageName: 'x',
      version: '1.0.0',
      manifest: { extension: './src/index.ts', kernel: '^1.0.0', description: 'Greets.' },
      provides: { tools: ['greet'], hooks: ['tool_call:authorize'] },
      policy: true,
    });
  });

  it('reports every problem at once', () => {
    const r = manifestOf({ extension: '/abs/index.ts', kernel: '', provides: { tools: 'greet', hooks: ['tool_call:decide', 'later'] }, description: 3 });
    expect(r.ok).toBe(false);
    const list = problems(r);
    expect(list).toHaveLength(6);
    expect(list.join('\n')).toMatch(/airlock.extension.*inside the package/);
    expect(list.join('\n')).toMatch(/airlock.kernel.*semver range/);
    expect(list.join('\n')).toMatch(/provides.tools.*array/);
    expect(list.join('\n')).toMatch(/hooks\[0\].*phase "decide".*transform, authorize, approve, observe/);
    expect(list.join('\n')).toMatch(/hooks\[1\].*"<hook>:<phase>"/);
    expect(list.join('\n')).toMatch(/description/);
  });

  it('keeps an entry module inside its package and loadable', () => {
    expect(problems(manifestOf({ extension: '../other/index.ts', kernel: '^1' }))[0]).toMatch(/inside the package/);
    expect(problems(manifestOf({ extension: './src/index.py', kernel: '^1' }))[0]).toMatch(/\.ts, \.mts/);
  });

  it('still sees declared policy hooks in a broken manifest (for fail closed)', () => {
    const r = manifestOf({ extension: 3, kernel: '^1.0.0', provides: { hooks: ['tool_result:redact'] } });
    expect(r.ok).toBe(false);
    expect(r.policy).toBe(true);
  });

  it('names a missing airlock field and a package.json that is not JSON', () => {
    const dir = tempDir();
    writePackage(dir, { name: 'plain', airlock: false, files: {} });
    const missing = readManifest(dir, subject);
    expect(missing.ok ? 'ok' : missing.diagnostic.code).toBe('AIRLOCK_EXTENSION_MANIFEST_MISSING');

    writeFileSync(join(dir, 'package.json'), '{ "name": ');
    const broken = readManifest(dir, subject);
    expect(broken.ok ? 'ok' : broken.diagnostic.code).toBe('AIRLOCK_EXTENSION_MANIFEST_INVALID');
    expect(problems(broken)[0]).toMatch(/not valid JSON/);
  });

  it('lets a local extension go without a version', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'local', airlock: { extension: './index.ts', kernel: '^1.0.0' } }));
    const r = readManifest(dir, subject);
    expect(r.ok && r.version).toBe('0.0.0');
  });
});

describe('what a package says it reaches (airlock.uses)', () => {
  it('reads processes and network, once each', () => {
    const r = manifestOf({ extension: './src/index.ts', kernel: '^1.0.0', uses: ['network', 'processes', 'network'] });
    expect(r.ok && r.manifest.uses).toEqual(['network', 'processes']);
  });

  it('refuses anything else, naming what may be written', () => {
    for (const uses of ['network', ['filesystem'], [1]]) {
      expect(problems(manifestOf({ extension: './src/index.ts', kernel: '^1.0.0', uses }))).toEqual([expect.stringContaining('"airlock.uses" must be an array of "processes" and "network"')]);
    }
  });
});

describe('declared commands (airlock.commands)', () => {
  it('reads each { name, summary, module }', () => {
    const r = manifestOf({ extension: './src/index.ts', kernel: '^1.0.0', commands: [{ name: 'my-report', summary: '  the weekly report ', module: './src/report.ts' }] });
    expect(r.ok && r.manifest.commands).toEqual([{ name: 'my-report', summary: 'the weekly report', module: './src/report.ts' }]);
  });

  it('names every entry that cannot work, with what to write instead', () => {
    const r = manifestOf({
      extension: './src/index.ts',
      kernel: '^1.0.0',
      commands: [
        { name: 'Report!', summary: 'r', module: './src/r.ts' },
        { name: 'call', summary: 'c', module: './src/c.ts' },
        { name: 'twice', summary: 'one', module: './src/t.ts' },
        { name: 'twice', summary: 'two', module: './src/t.ts' },
        { name: 'lines', summary: 'first\nsecond', module: '../elsewhere.ts' },
        { name: 'extra', summary: 'e', module: './src/e.py', run: 'x' },
        'report',
      ],
    });
    expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_MANIFEST_INVALID');
    expect(problems(r)).toEqual([
      '"airlock.commands[0].name" must be lowercase letters, digits and "-", starting with a letter (e.g. "my-report"), got "Report!"',
      `"airlock.commands[1].name" is "call", one of airlock's own commands (run, call, batch, tools, extensions, doctor, trust, sessions, replay, mcp, serve, help, version); choose another name`,
      '"airlock.commands[3].name" "twice" is declared twice; each command once',
      '"airlock.commands[4].summary" must be one line of text for airlock --help, got "first\\nsecond"',
      '"airlock.commands[4].module" must be a path inside the package, like "./src/command.ts", got "../elsewhere.ts"',
      '"airlock.commands[5].module" must be a .ts, .mts, .cts, .tsx, .js, .mjs or .cjs file, got "./src/e.py"',
      '"airlock.commands[5]" has keys a command does not take: "run" (it takes "name", "summary" and "module"; the rest goes in the module)',
      '"airlock.commands[6]" must be an object { "name", "summary", "module" }, got "report"',
    ]);
    expect(problems(manifestOf({ extension: './src/index.ts', kernel: '^1.0.0', commands: { name: 'x' } }))[0]).toMatch(/"airlock.commands" must be an array like \[\{ "name"/);
  });
});

describe('manifest phases come from the kernel\'s phase record', () => {
  it.each(Object.keys(PHASES))('%s is accepted, and counts as a policy hook exactly when the record says so', (key) => {
    const r = manifestOf({ extension: './src/index.ts', kernel: '^1.0.0', provides: { hooks: [key] } });
    expect(r).toMatchObject({ ok: true, policy: PHASES[key as keyof typeof PHASES].policy });
  });

  it('lists as policy phases the record\'s policy rows', () => {
    expect([...POLICY_PHASES].sort()).toEqual(Object.entries(PHASES).filter(([, row]) => row.policy).map(([key]) => key).sort());
  });
});

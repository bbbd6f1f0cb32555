import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { createFindTool, findFd } from '../src/index.js';
import { isRoot, runAllAsNobody, type ChildOutcome } from '../../../lib/tool-common/test/support/as-unprivileged.js';

function tree(files: Record<string, string>): string {
  const dir = makeTempDir('airlock-find-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

async function find(cwd: string, args: Record<string, unknown>, engine: 'node' | 'fd' = 'node') {
  const h = createToolHarness(createFindTool({ engine }), { cwd });
  const msg = await h.call(args);
  return { outcome: msg.outcome, text: h.text(msg) };
}

const engines: ('node' | 'fd')[] = findFd() ? ['node', 'fd'] : ['node'];

describe.each(engines)('find (%s engine): what Pi asserts', (engine) => {
  it('includes hidden files unless gitignored', async () => {
    const dir = tree({ '.secret.txt': '', 'visible.txt': '', '.ignored.txt': '', '.gitignore': '.ignored.txt\n' });
    expect((await find(dir, { pattern: '*.txt' }, engine)).text).toBe('.secret.txt\nvisible.txt');
  });

  it('respects .gitignore outside a git repository', async () => {
    const dir = tree({ '.gitignore': 'ignored.txt\n', 'ignored.txt': '', 'kept.txt': '' });
    expect((await find(dir, { pattern: '*.txt' }, engine)).text).toBe('kept.txt');
  });

  it('treats flag-like patterns as text', async () => {
    const dir = tree({ '--help': '', '-x.txt': '' });
    expect((await find(dir, { pattern: '--help' }, engine)).text).toBe('--help');
    expect((await find(dir, { pattern: '-x*' }, engine)).text).toBe('-x.txt');
  });

  it('matches a pattern with / against the relative path (3302)', async () => {
    const dir = tree({ 'src/a/x.spec.ts': '', 'src/b.spec.ts': '', 'other/src/c.spec.ts': '', 'src/a/y.ts': '' });
    expect((await find(dir, { pattern: 'src/**/*.spec.ts' }, engine)).text).toBe('src/a/x.spec.ts\nsrc/b.spec.ts');
    expect((await find(dir, { pattern: '**/src/*.spec.ts' }, engine)).text).toBe('other/src/c.spec.ts\nsrc/b.spec.ts');
  });

  it('scopes a nested .gitignore to its folder (3303)', async () => {
    const dir = tree({ 'pkg/.gitignore': 'gen.ts\n', 'pkg/gen.ts': '', 'gen.ts': '', 'pkg/lib.ts': '' });
    expect((await find(dir, { pattern: '*.ts' }, engine)).text).toBe('gen.ts\npkg/lib.ts');
  });
});

describe.each(engines)('find (%s engine): ours', (engine) => {
  it('sorts, marks folders with /, never lists .git/', async () => {
    const dir = tree({ 'b/file': '', 'a-c': '', 'a/z': '', '.git/HEAD': '', 'B': '' });
    expect((await find(dir, { pattern: '*' }, engine)).text).toBe('B\na/\na/z\na-c\nb/\nb/file');
  });

  it('stops at the limit with a notice, and says when nothing matches', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`f${String(i).padStart(2, '0')}.ts`] = '';
    const dir = tree(files);
    expect((await find(dir, { pattern: '*.ts', limit: 3 }, engine)).text).toBe(
      'f00.ts\nf01.ts\nf02.ts\n\n[3 results limit reached. Use limit=6 for more, or refine the pattern.]',
    );
    expect((await find(dir, { pattern: '*.rs' }, engine)).text).toBe('No files found matching *.rs.');
    const missing = await find(dir, { pattern: '*', path: 'nope' }, engine);
    expect(missing.outcome).toBe('error');
    expect(missing.text).toContain('Path not found: nope');
  });
});

describe('find: engines agree', () => {
  it.skipIf(!findFd())('fd and Node give identical output on the same tree', async () => {
    const files: Record<string, string> = { '.gitignore': 'skip/\n', 'skip/a.js': '', '.h/x.js': '', 'm/.ignore': '*.tmp\n', 'm/y.tmp': '' };
    for (let i = 0; i < 60; i++) files[`m${i % 4}/n${i % 7}/f${i}.js`] = '';
    const dir = tree(files);
    for (const args of [{ pattern: '*.js' }, { pattern: 'm1/**' }, { pattern: '*', limit: 10 }]) {
      expect((await find(dir, args, 'fd')).text).toBe((await find(dir, args, 'node')).text);
    }
  });
});

/**
 * The real tool, with the engine forced, run as a user chmod applies to (nobody when the tests
 * run as root), for each args in turn.
 */
async function findUnprivileged(cwd: string, engine: 'node' | 'fd', calls: Record<string, unknown>[]): Promise<ChildOutcome[]> {
  if (isRoot) return runAllAsNobody('tool-find', 'createFindTool', cwd, calls.map((params) => ({ params, factoryArgs: [{ engine }] })));
  const outcomes: ChildOutcome[] = [];
  for (const args of calls) {
    const h = createToolHarness(createFindTool({ engine }), { cwd });
    const msg = await h.call(args);
    outcomes.push({ ok: msg.outcome === 'ok', text: h.text(msg), details: msg.details });
  }
  return outcomes;
}

describe.each(engines)('find (%s engine): folders it may not read', (engine) => {
  // mkdtemp makes the root 0700; 0755 so that only what a test locks is locked.
  const lockedTree = (files: Record<string, string>, locked: Record<string, number>) => {
    const dir = tree(files);
    chmodSync(dir, 0o755);
    for (const [path, mode] of Object.entries(locked)) chmodSync(join(dir, path), mode);
    return dir;
  };

  it('refuses an unreadable folder to search instead of finding nothing in it', async () => {
    const dir = lockedTree({ 'locked/a.txt': '', 'names-only/b.txt': '' }, { locked: 0o000, 'names-only': 0o444 });
    const fix = 'Search somewhere else, or ask the user to change the permissions.';
    expect(await findUnprivileged(dir, engine, [{ pattern: '*', path: 'locked' }, { pattern: '*', path: 'names-only' }])).toEqual([
      { ok: false, text: `Permission denied: cannot search locked (this process may not read that folder). ${fix}` },
      { ok: false, text: `Permission denied: cannot search names-only (this process may not read that folder). ${fix}` },
    ]);
  }, scaledMs(30_000));

  it('lists what it could read and says which folders it could not', async () => {
    // An unreadable file is still found: find needs its name, not its contents.
    const dir = lockedTree({ 'a.txt': '', 'secret.txt': '', 'sub/x.txt': '', 'z/ok.txt': '' }, { sub: 0o000, 'secret.txt': 0o000 });
    const [found, none, early] = (await findUnprivileged(dir, engine, [{ pattern: '*.txt' }, { pattern: '*.rs' }, { pattern: '*.txt', limit: 1 }])) as ChildOutcome[];
    expect(found?.ok).toBe(true);
    expect(found?.text).toBe('a.txt\nsecret.txt\nz/ok.txt\n\n[1 path could not be read (permission denied): sub; results may be incomplete.]');
    expect(found?.details).toMatchObject({ results: 3, unreadable: { count: 1, paths: [{ path: 'sub', code: 'EACCES' }] } });
    expect(none?.text).toBe('No files found matching *.rs.\n\n[1 path could not be read (permission denied): sub; results may be incomplete.]');
    // Stopped by the limit before reaching the locked folder: nothing to report yet.
    expect(early?.text).toBe('a.txt\n\n[1 results limit reached. Use limit=2 for more, or refine the pattern.]');
  }, scaledMs(30_000));
});

describe('find: resources', () => {
  it('declares the folder it searches under both names: the real one, and as the model wrote it ("." when left out)', () => {
    const dir = tree({ 'real/a.txt': 'x' });
    symlinkSync('real', join(dir, 'link'));
    const tool = createFindTool();
    const ctx = createTestContext({ cwd: dir });
    expect(tool.resources?.({ pattern: 'x', path: 'link' }, ctx)).toEqual([{ kind: 'fs.read', path: join(dir, 'real'), written: 'link' }]);
    expect(tool.resources?.({ pattern: 'x' }, ctx)).toEqual([{ kind: 'fs.read', path: dir, written: '.' }]);
  });
});

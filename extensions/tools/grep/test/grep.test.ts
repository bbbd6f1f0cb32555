import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { createGrepTool, engineFor, findRipgrep, NODE_FILE_MAX, type GrepDetails } from '../src/index.js';
import { isRoot, runAllAsNobody, type ChildOutcome } from '../../../lib/tool-common/test/support/as-unprivileged.js';

function tree(files: Record<string, string | Buffer>): string {
  const dir = makeTempDir('airlock-grep-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

async function grep(cwd: string, args: Record<string, unknown>, engine: 'node' | 'rg' = 'node') {
  const h = createToolHarness(createGrepTool({ engine }), { cwd });
  const msg = await h.call(args);
  return { outcome: msg.outcome, text: h.text(msg) };
}

const engines: ('node' | 'rg')[] = findRipgrep() ? ['node', 'rg'] : ['node'];

describe.each(engines)('grep (%s engine): what Pi asserts', (engine) => {
  it('prints file:line: text for a single-file search, with the basename', async () => {
    const dir = tree({ 'example.txt': 'first line\nmatch line\nlast line\n' });
    const { text } = await grep(dir, { pattern: 'match', path: join(dir, 'example.txt') }, engine);
    expect(text).toBe('example.txt:2: match line');
  });

  it('limit 1 with context 1 shows context around the first match only, and the limit notice', async () => {
    const dir = tree({ 'context.txt': 'before\nmatch one\nafter\nmiddle\nmatch two\nend\n' });
    const { text } = await grep(dir, { pattern: 'match', path: 'context.txt', limit: 1, context: 1 }, engine);
    expect(text).toBe(
      'context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n[1 matches limit reached. Use limit=2 for more, or refine the pattern.]',
    );
    expect(text).not.toContain('match two');
  });

  it('treats flag-like patterns as text', async () => {
    const dir = tree({ 'a.txt': 'x --help y\n-v\n' });
    expect((await grep(dir, { pattern: '--help' }, engine)).text).toBe('a.txt:1: x --help y');
    expect((await grep(dir, { pattern: '-v', literal: true }, engine)).text).toBe('a.txt:2: -v');
  });
});

describe.each(engines)('grep (%s engine): ours', (engine) => {
  it('sorts by path then line, respects .gitignore/.ignore (nested), includes hidden files, never .git/', async () => {
    const dir = tree({
      'b.txt': 'hit\nno\nhit\n',
      'a/z.txt': 'hit\n',
      'a-c.txt': 'hit\n',
      '.hidden': 'hit\n',
      '.gitignore': 'ignored.txt\nbuild/\n',
      'ignored.txt': 'hit\n',
      'build/x.txt': 'hit\n',
      'sub/.ignore': 'local.txt\n',
      'sub/local.txt': 'hit\n',
      'local.txt': 'hit\n',
      '.git/config': 'hit\n',
    });
    const { text } = await grep(dir, { pattern: 'hit' }, engine);
    expect(text.split('\n')).toEqual(['.hidden:1: hit', 'a/z.txt:1: hit', 'a-c.txt:1: hit', 'b.txt:1: hit', 'b.txt:3: hit', 'local.txt:1: hit']);
  });

  it('stops at the limit deterministically, in path order', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`d${i % 3}/f${String(i).padStart(2, '0')}.txt`] = 'value = 1\nvalue = 2\n';
    const dir = tree(files);
    const first = await grep(dir, { pattern: 'value', limit: 5 }, engine);
    expect(first.text).toBe(
      'd0/f00.txt:1: value = 1\nd0/f00.txt:2: value = 2\nd0/f03.txt:1: value = 1\nd0/f03.txt:2: value = 2\nd0/f06.txt:1: value = 1\n\n' +
        '[5 matches limit reached. Use limit=10 for more, or refine the pattern.]',
    );
    expect((await grep(dir, { pattern: 'value', limit: 5 }, engine)).text).toBe(first.text);
  });

  it('skips binary files, cuts long lines at 500 characters, and honours glob, ignoreCase and literal', async () => {
    const dir = tree({
      'bin.dat': Buffer.concat([Buffer.from('hit\n'), Buffer.from([0, 1, 2])]),
      'long.txt': `hit${'x'.repeat(600)}\n`,
      'code.ts': 'HIT (a.b)\n',
    });
    const long = await grep(dir, { pattern: 'hit', glob: '*.txt' }, engine);
    expect(long.text).toBe(`long.txt:1: hit${'x'.repeat(497)}… [line cut at 500 characters]`);
    expect((await grep(dir, { pattern: 'hit', ignoreCase: true, glob: '*.ts' }, engine)).text).toBe('code.ts:1: HIT (a.b)');
    expect((await grep(dir, { pattern: '(a.b)', literal: true }, engine)).text).toBe('code.ts:1: HIT (a.b)');
    expect((await grep(dir, { pattern: 'hit', glob: '!*.txt' }, engine)).text).toBe('No matches found.');
  });

  it('reports an invalid regex naming the pattern, and a missing path with suggestions', async () => {
    const dir = tree({ 'readme.md': 'x\n' });
    const bad = await grep(dir, { pattern: '(unclosed' }, engine);
    expect(bad.outcome).toBe('error');
    expect(bad.text).toContain('Invalid regular expression "(unclosed"');
    const missing = await grep(dir, { pattern: 'x', path: 'readm.md' }, engine);
    expect(missing.outcome).toBe('error');
    expect(missing.text).toContain('Path not found: readm.md. Did you mean: readme.md?');
  });
});

describe('grep: the engine auto takes', () => {
  const auto = async (cwd: string, args: Record<string, unknown>) => {
    const h = createToolHarness(createGrepTool(), { cwd });
    return (await h.call(args)).details as GrepDetails;
  };

  it('searches a named file in-process, and leaves a big one to rg, which streams it', async () => {
    const dir = tree({ 'small.txt': 'a hit\n', 'big.bin': '' });
    truncateSync(join(dir, 'big.bin'), NODE_FILE_MAX + 1);
    expect((await auto(dir, { pattern: 'hit', path: 'small.txt' })).engine).toBe('node');
    expect((await auto(dir, { pattern: 'hit', path: 'big.bin' })).engine).toBe(findRipgrep() ? 'rg' : 'node');
  });

  it('searches a folder with rg when no read rules judge its files one by one', async () => {
    const dir = tree({ 'a.txt': 'hit\n' });
    expect((await auto(dir, { pattern: 'hit' })).engine).toBe(findRipgrep() ? 'rg' : 'node');
  });

  it('keeps an engine that settings chose', () => {
    expect(engineFor('rg', 10, true)).toBe('rg');
    expect(engineFor('node', undefined, false)).toBe('node');
  });
});

describe('grep: engines agree', () => {
  it.skipIf(!findRipgrep())('rg and Node give identical output on the same tree', async () => {
    const files: Record<string, string> = { '.gitignore': 'skip/\n', 'skip/a.txt': 'value\n', '.h/x': 'value = 3\n' };
    for (let i = 0; i < 50; i++) files[`m${i % 4}/n${i % 7}/f${i}.js`] = `const value_${i} = ${i};\nother\nvalue_${i}\n`;
    const dir = tree(files);
    // Globs with a "/" match the path below the searched folder, on both engines.
    const globs = [{ pattern: 'value', glob: 'm1/**' }, { pattern: 'value', glob: 'm2/n3/*.js' }, { pattern: 'value', glob: '**/n5/**' }];
    for (const args of [{ pattern: 'value_[0-9]+' }, { pattern: 'value', context: 1, limit: 7 }, { pattern: 'VALUE', ignoreCase: true, glob: '*.js' }, ...globs]) {
      const rg = (await grep(dir, args, 'rg')).text;
      expect(rg).toBe((await grep(dir, args, 'node')).text);
      if ('glob' in args && args.glob?.includes('/')) expect(rg).not.toBe('No matches found.');
    }
  });
});

// The Node engine reads files into one reused buffer and rejects files on their raw bytes
// (a NUL in the first 8 KiB, a required literal absent) before decoding: these pin what must not change.
describe('grep (node engine): reading and prefiltering', () => {
  it('finds matches in files bigger than the read buffer, and in small files read after them', async () => {
    const big = `${'filler line\n'.repeat(20_000)}deep match\n`; // ~240 KB: the buffer grows
    const dir = tree({ 'a-big.txt': big, 'b-small.txt': 'small match\n', 'c-none.txt': 'nothing\n' });
    expect((await grep(dir, { pattern: 'match' })).text).toBe('a-big.txt:20001: deep match\nb-small.txt:1: small match');
  });

  it('calls a file binary only for a NUL within the first 8 KiB', async () => {
    const dir = tree({
      'early.bin': Buffer.concat([Buffer.from('hit\n'), Buffer.alloc(1), Buffer.from('\nhit\n')]),
      'late.txt': Buffer.concat([Buffer.from(`hit\n${'x'.repeat(9000)}\n`), Buffer.alloc(1), Buffer.from('\n')]),
    });
    expect((await grep(dir, { pattern: 'hit' })).text).toBe('late.txt:1: hit');
  });

  it('keeps every match the literal shortcut could wrongly skip', async () => {
    const dir = tree({
      'a.txt': 'color\ncolour\n',
      'b.txt': 'fooX\nbar\n',
      'c.txt': 'a.b(c\naxb(c\n',
      'd.txt': 'caf\u00e9 au lait\n',
      'e.txt': Buffer.concat([Buffer.from('bad '), Buffer.from([0xff, 0xfe]), Buffer.from(' bytes then needle\n')]),
    });
    const lines = async (args: Record<string, unknown>) => (await grep(dir, args)).text.split('\n');
    expect(await lines({ pattern: 'colou?r' })).toEqual(['a.txt:1: color', 'a.txt:2: colour']);
    expect(await lines({ pattern: 'fooX|bar' })).toEqual(['b.txt:1: fooX', 'b.txt:2: bar']);
    expect(await lines({ pattern: 'a\\.b\\(c' })).toEqual(['c.txt:1: a.b(c']);
    expect(await lines({ pattern: 'a.b\\(c' })).toEqual(['c.txt:1: a.b(c', 'c.txt:2: axb(c']);
    expect(await lines({ pattern: 'caf\u00e9', literal: true })).toEqual(['d.txt:1: caf\u00e9 au lait']);
    expect(await lines({ pattern: 'COLOR', ignoreCase: true })).toEqual(['a.txt:1: color']);
    expect(await lines({ pattern: '^bad .* needle$' })).toEqual(['e.txt:1: bad \ufffd\ufffd bytes then needle']);
  });
});

describe('grep: engines agree on the Node engine shortcuts', () => {
  it.skipIf(!findRipgrep())('rg and Node agree on quantified, alternated, escaped and anchored patterns', async () => {
    const files: Record<string, string> = {
      'a.txt': 'color\ncolour\ncolouur\n',
      'b.ts': 'fooX\nbar\nfoo bar\n',
      'c.md': 'a.b(c\naxb(c\n(a.b)\n',
      'big.txt': `${'filler line\n'.repeat(8_000)}needle_rare_42 at the end\n`,
    };
    for (let i = 0; i < 40; i++) files[`t/m${i % 5}/f${i}.txt`] = i % 9 === 0 ? `x\nneedle_rare_${i} = ${i}\n` : 'nothing here\n';
    const dir = tree(files);
    const cases = [
      { pattern: 'colou?r' },
      { pattern: 'colo(u)*r' },
      { pattern: 'fooX|bar' },
      { pattern: 'a\\.b\\(c' },
      { pattern: '^foo' },
      { pattern: 'needle_rare_[0-9]+' },
      { pattern: 'needle_rare_', literal: true },
      { pattern: '(a.b)', literal: true },
      { pattern: 'NEEDLE_RARE', ignoreCase: true, context: 1 },
    ];
    for (const args of cases) expect((await grep(dir, args, 'rg')).text, JSON.stringify(args)).toBe((await grep(dir, args, 'node')).text);
  });
});

/**
 * A tree to search as a user who may not read everything: `locked` paths get mode 000. The root
 * is made 0755 (mkdtemp gives 0700) so that only what is meant to be locked is.
 */
function lockedTree(files: Record<string, string>, locked: string[]): string {
  const dir = tree(files);
  chmodSync(dir, 0o755);
  for (const path of locked) chmodSync(join(dir, path), 0o000);
  return dir;
}

/**
 * The real tool, with the engine forced, run as a user chmod applies to (nobody when the tests
 * run as root), for each [args, engine] in turn.
 */
async function grepUnprivileged(cwd: string, calls: [Record<string, unknown>, 'node' | 'rg'][]): Promise<ChildOutcome[]> {
  if (isRoot) return runAllAsNobody('tool-grep', 'createGrepTool', cwd, calls.map(([params, engine]) => ({ params, factoryArgs: [{ engine }] })));
  const outcomes: ChildOutcome[] = [];
  for (const [args, engine] of calls) {
    const h = createToolHarness(createGrepTool({ engine }), { cwd });
    const msg = await h.call(args);
    outcomes.push({ ok: msg.outcome === 'ok', text: h.text(msg), details: msg.details });
  }
  return outcomes;
}

describe.each(engines)('grep (%s engine): paths it may not read', (engine) => {
  it('refuses an unreadable folder or file to search, saying why and what to do', async () => {
    const dir = lockedTree({ 'locked/a.txt': 'hit\n', 'names-only/b.txt': 'hit\n', 's.txt': 'hit\n' }, ['locked', 's.txt']);
    chmodSync(join(dir, 'names-only'), 0o444); // listable, not enterable: just as unsearchable
    const fix = 'Search somewhere else, or ask the user to change the permissions.';
    const paths = ['locked', 'names-only', 's.txt'];
    expect(await grepUnprivileged(dir, paths.map((path) => [{ pattern: 'hit', path }, engine]))).toEqual([
      { ok: false, text: `Permission denied: cannot search locked (this process may not read that folder). ${fix}` },
      { ok: false, text: `Permission denied: cannot search names-only (this process may not read that folder). ${fix}` },
      { ok: false, text: `Permission denied: cannot search s.txt. The file exists but this process may not read it. ${fix}` },
    ]);
  }, scaledMs(30_000));

  it('keeps the matches it could read and says which paths it could not', async () => {
    const dir = lockedTree({ 'a.txt': 'hit\n', 'secret.txt': 'hit\n', 'sub/x.txt': 'hit\n', 'z/ok.txt': 'no\nhit\n' }, ['sub', 'secret.txt']);
    const [found, none] = (await grepUnprivileged(dir, [[{ pattern: 'hit' }, engine], [{ pattern: 'absent' }, engine]])) as [ChildOutcome, ChildOutcome];
    expect(found.ok).toBe(true);
    expect(found.text).toBe('a.txt:1: hit\nz/ok.txt:2: hit\n\n[2 paths could not be read (permission denied): secret.txt, sub; results may be incomplete.]');
    expect(found.details).toMatchObject({ matches: 2, unreadable: { count: 2, paths: [{ path: 'secret.txt', code: 'EACCES' }, { path: 'sub', code: 'EACCES' }] } });
    // Nothing found still says the search was partial: "no matches" alone would be wrong.
    expect(none.text).toBe('No matches found.\n\n[2 paths could not be read (permission denied): secret.txt, sub; results may be incomplete.]');
  }, scaledMs(30_000));
});

describe('grep: engines agree on paths they may not read', () => {
  it.skipIf(!findRipgrep())('rg and Node give identical output, also when the limit stops them before or after a locked path', async () => {
    const files: Record<string, string> = { 'm/.gitignore': 'skip.txt\n', 'm/a.txt': 'hit\n', 'm/skip.txt': 'hit\n' };
    for (let i = 0; i < 8; i++) files[`d${i}/f.txt`] = `hit ${i}\nhit again\n`;
    for (let i = 0; i < 5; i++) files[`s${i}.txt`] = 'hit\n';
    // Locked: folders, files, and an ignore file (reported only where it is searched as a file).
    const dir = lockedTree(files, ['d2', 'd5', 's1.txt', 's3.txt', 'm/.gitignore']);
    const cases = [
      { pattern: 'hit' },
      { pattern: 'hit', limit: 3 },
      { pattern: 'hit', limit: 9 },
      { pattern: 'again', limit: 4 },
      { pattern: 'hit', glob: 's*' },
      { pattern: 'hit', glob: '*.txt' },
      { pattern: 'hit', glob: '!s*' },
      { pattern: 'hit', glob: '.gitignore' },
      { pattern: 'absent' },
    ];
    const rg = await grepUnprivileged(dir, cases.map((args) => [args, 'rg']));
    const node = await grepUnprivileged(dir, cases.map((args) => [args, 'node']));
    cases.forEach((args, i) => {
      expect(rg[i]?.ok, JSON.stringify(args)).toBe(true);
      expect(rg[i]?.text, JSON.stringify(args)).toBe(node[i]?.text);
    });
    // The unlimited search reports all five, in path order, naming the first three.
    expect(rg.at(-1)?.text).toBe('No matches found.\n\n[5 paths could not be read (permission denied), e.g. d2, d5, m/.gitignore; results may be incomplete.]');
  }, scaledMs(30_000));

  it.skipIf(!findRipgrep())('a pattern rg rejects is still an error in a tree with locked paths', async () => {
    const dir = lockedTree({ 'a.txt': 'ab\n', 'sub/x.txt': 'ab\n' }, ['sub']);
    const [bad] = (await grepUnprivileged(dir, [[{ pattern: 'a(?=b)' }, 'rg']])) as [ChildOutcome];
    expect(bad.ok).toBe(false);
    // Refused before rg runs: grep matches in linear time, with no lookarounds (as rg).
    expect(bad.text).toMatch(/^Invalid regular expression "a\(\?=b\)": it uses a lookahead "\(\?=".*as rg does/s);
  }, scaledMs(30_000));
});

describe.each(engines)('grep (%s engine): FIFOs and devices', (engine) => {
  it('refuses a FIFO named as the path at once, with a message that says what it is', async () => {
    const dir = tree({ 'a.txt': 'hit\n' });
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const started = Date.now();
    const { outcome, text } = await grep(dir, { pattern: 'hit', path: 'pipe' }, engine);
    expect(outcome).toBe('error');
    expect(text).toContain('pipe is a named pipe (FIFO), not a regular file; grep searches regular files and folders only');
    expect(Date.now() - started).toBeLessThan(scaledMs(2000));
  }, scaledMs(5000));

  it('refuses a device named as the path', async () => {
    const dir = tree({ 'a.txt': 'hit\n' });
    const { outcome, text } = await grep(dir, { pattern: 'x', path: '/dev/zero' }, engine);
    expect(outcome).toBe('error');
    expect(text).toContain('is a character device, not a regular file');
  }, scaledMs(5000));

  it('a folder with a FIFO in it is searched, the FIFO skipped, and the search ends', async () => {
    const dir = tree({ 'a.txt': 'hit\n', 'z.txt': 'hit\n' });
    execFileSync('mkfifo', [join(dir, 'm-pipe')]);
    const { outcome, text } = await grep(dir, { pattern: 'hit' }, engine);
    expect(outcome).toBe('ok');
    expect(text).toBe('a.txt:1: hit\nz.txt:1: hit');
  }, scaledMs(5000));
});

describe('grep: resources', () => {
  it('declares the folder it searches under both names: the real one, and as the model wrote it ("." when left out)', () => {
    const dir = tree({ 'real/a.txt': 'x' });
    symlinkSync('real', join(dir, 'link'));
    const tool = createGrepTool();
    const ctx = createTestContext({ cwd: dir });
    expect(tool.resources?.({ pattern: 'x', path: 'link' }, ctx)).toEqual([{ kind: 'fs.read', path: join(dir, 'real'), written: 'link' }]);
    expect(tool.resources?.({ pattern: 'x' }, ctx)).toEqual([{ kind: 'fs.read', path: dir, written: '.' }]);
  });
});

import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHost, scaledMs } from '@airlock/kernel/testing';
import { type AccessCheck } from '@airlock/contract';
import { tree as makeTree } from '../../../lib/tool-common/test/support/tree.js';
import { createGrepTool, findRipgrep, type GrepDetails } from '../src/index.js';

/**
 * grep judges every file of a folder search through ctx.access (the read rules a policy
 * extension registered) before opening it. These tests use plain checks, not path-policy: the
 * tool must work with whatever policy is loaded (path-policy itself is tested through the host).
 */

const tree = (files: Record<string, string>) => makeTree(files, 'airlock-grep-rules-');

/** deny *.secret and names starting "deny", ask *.ask; everything else allowed. */
const byName: AccessCheck = ({ path }) => {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name.endsWith('.secret') || name.startsWith('deny')) return { effect: 'deny', reason: `${name} is secret`, rule: 'fs.read(**/*.secret)' };
  if (name.endsWith('.ask')) return { effect: 'ask', reason: `${name} needs a person`, rule: 'fs.read(**/*.ask)' };
  return undefined;
};

async function grep(t: { base: string; root: string }, engine: 'node' | 'rg' | 'auto', args: Record<string, unknown>, checks: AccessCheck[] = [byName]) {
  const { kernel, services } = createTestHost({ cwd: t.root, spill: { dir: join(t.base, 'spill') } });
  checks.forEach((check, i) => services.access.add(`check-${i + 1}`, check));
  kernel.registry.register(createGrepTool({ engine }), { source: 'sdk' });
  const message = await kernel.executeToolCall({ id: '1', name: 'grep', arguments: args });
  const text = message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { message, text, details: message.details as GrepDetails };
}

const engines: ('node' | 'rg')[] = findRipgrep() ? ['node', 'rg'] : ['node'];

/** Access times set in the past: reading a file moves its atime (relatime updates an atime older than mtime). */
function ageAccessTime(path: string): void {
  const { mtime } = statSync(path);
  utimesSync(path, new Date('2020-01-01T00:00:00Z'), mtime);
}
const readSince = (path: string) => statSync(path).atimeMs > Date.parse('2020-01-02T00:00:00Z');

describe.each(engines)('grep (%s engine) and the read rules', (engine) => {
  it('never reads a refused file, not even to filter its lines out afterwards', async () => {
    const t = tree({ 'a.secret': 'hit SECRET-VALUE\n', 'b.txt': 'hit ordinary\n' });
    ageAccessTime(join(t.root, 'a.secret'));
    ageAccessTime(join(t.root, 'b.txt'));
    const { text } = await grep(t, engine, { pattern: 'hit' });
    expect(text).toContain('b.txt:1: hit ordinary');
    expect(text).not.toContain('SECRET-VALUE');
    // The control file shows that a read would have shown up in its access time.
    expect(readSince(join(t.root, 'b.txt'))).toBe(true);
    expect(readSince(join(t.root, 'a.secret'))).toBe(false);
  });

  it('counts denied files and files needing approval separately, by rule, in path order', async () => {
    const t = tree({ 'x.secret': 'hit\n', 'sub/y.secret': 'hit\n', 'z.ask': 'hit\n', 'ok.txt': 'hit\n' });
    const { text, details } = await grep(t, engine, { pattern: 'hit' });
    expect(text).toBe(
      'ok.txt:1: hit\n\n[3 files skipped by the read rules, not searched: 2 denied (fs.read(**/*.secret): sub/y.secret, x.secret), ' +
        '1 needs approval (fs.read(**/*.ask): z.ask). To read one anyway, use the read tool on its path: it is judged there on its own, and asks a person where the rules allow asking.]',
    );
    expect(details.skipped).toEqual({
      count: 3,
      denied: 2,
      needsApproval: 1,
      paths: [
        { path: 'sub/y.secret', effect: 'deny', reason: 'y.secret is secret', rule: 'fs.read(**/*.secret)' },
        { path: 'x.secret', effect: 'deny', reason: 'x.secret is secret', rule: 'fs.read(**/*.secret)' },
        { path: 'z.ask', effect: 'ask', reason: 'z.ask needs a person', rule: 'fs.read(**/*.ask)' },
      ],
    });
  });

  it('a file whose name is hard to spell as a glob is still kept out', async () => {
    const odd = 'deny we*ird [1] {a,b} !#?.txt';
    const t = tree({ [odd]: 'hit SECRET-VALUE\n', 'we ird 1.txt': 'hit fine\n' });
    ageAccessTime(join(t.root, odd));
    const { text } = await grep(t, engine, { pattern: 'hit' });
    expect(text).toContain('we ird 1.txt:1: hit fine');
    expect(text).not.toContain('SECRET-VALUE');
    expect(text).toContain('1 file skipped');
    expect(readSince(join(t.root, odd))).toBe(false);
  });

  it('a check that throws keeps every file closed (fail closed), and says why', async () => {
    const t = tree({ 'a.txt': 'hit\n' });
    const broken: AccessCheck = () => {
      throw new Error('rules unavailable');
    };
    const { text, details } = await grep(t, engine, { pattern: 'hit' }, [broken]);
    expect(text).toContain('No matches found.');
    expect(details.skipped?.denied).toBe(1);
    expect(details.skipped?.paths[0]?.reason).toContain('rules unavailable');
  });

  it('with no check registered every file is searched', async () => {
    const t = tree({ 'a.secret': 'hit\n', 'b.txt': 'hit\n' });
    const { text, details } = await grep(t, engine, { pattern: 'hit' }, []);
    expect(text).toBe('a.secret:1: hit\nb.txt:1: hit');
    expect(details.skipped).toBeUndefined();
  });

  it('an approval of the folder covers files asking under the same rule, not files asking under another', async () => {
    const t = tree({ 'a.txt': 'hit\n', 'b.ask': 'hit\n', 'c.secret': 'hit\n' });
    // Everything under the tree asks under one rule (like reading outside the workspace); the call ran, so it was approved.
    const outside: AccessCheck = () => ({ effect: 'ask', reason: 'outside the workspace', rule: 'default:read-outside-roots' });
    const { text, details } = await grep(t, engine, { pattern: 'hit' }, [outside, byName]);
    expect(text.split('\n\n')[0]).toBe('a.txt:1: hit');
    expect(details.skipped?.paths.map((p) => [p.path, p.effect])).toEqual([
      ['b.ask', 'ask'],
      ['c.secret', 'deny'],
    ]);
  });

  it('a file swapped for a symlink to a secret right after it was judged is not followed', async () => {
    const t = tree({ 'a.txt': 'hit ordinary\n' });
    writeFileSync(join(t.base, 'secret.txt'), 'hit SECRET-VALUE\n');
    // The check itself does the swap: the worst moment, between the verdict and the open.
    const swapping: AccessCheck = ({ path }) => {
      if (path === join(t.root, 'a.txt')) {
        unlinkSync(path);
        symlinkSync(join(t.base, 'secret.txt'), path);
      }
      return undefined;
    };
    const { text } = await grep(t, engine, { pattern: 'hit' }, [swapping]);
    expect(text).not.toContain('SECRET-VALUE');
  });

  it('the tool name the checks see is the one the kernel called', async () => {
    const t = tree({ 'a.txt': 'hit\n' });
    const tools = new Set<string>();
    await grep(t, engine, { pattern: 'hit' }, [({ tool }) => void tools.add(tool)]);
    expect([...tools]).toEqual(['grep']);
  });
});

describe.skipIf(!findRipgrep())('grep: the engines agree on what the read rules skip', () => {
  it('same lines, same skipped list, also when the match limit stops the search early', async () => {
    const files: Record<string, string> = {};
    for (const d of ['a', 'b', 'c']) for (const f of ['1.txt', '2.secret', '3.ask', '4.txt']) files[`${d}/${f}`] = `hit ${d}${f}\n`;
    const t = tree(files);
    for (const args of [{ pattern: 'hit' }, { pattern: 'hit', limit: 3 }, { pattern: 'hit', glob: 'b/**' }, { pattern: 'hit', glob: '!*.txt' }]) {
      const node = await grep(t, 'node', args);
      const rg = await grep(t, 'rg', args);
      expect(rg.text, JSON.stringify(args)).toBe(node.text);
      expect(rg.details.skipped, JSON.stringify(args)).toEqual(node.details.skipped);
    }
  });

  it('thousands of refused files: rg gets its exclusions from a config file, and the file is removed', async () => {
    const files: Record<string, string> = { 'keep.txt': 'hit kept\n' };
    const long = 'x'.repeat(150);
    for (let i = 0; i < 2000; i++) files[`d${i % 10}/${long}-${i}.secret`] = 'hit SECRET-VALUE\n';
    const t = tree(files);
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('airlock-rg-')).length;
    const rg = await grep(t, 'rg', { pattern: 'hit' });
    expect(rg.text.split('\n\n')[0]).toBe('keep.txt:1: hit kept');
    expect(rg.text).not.toContain('SECRET-VALUE');
    expect(rg.details.skipped?.count).toBe(2000);
    expect(rg.details.skipped?.paths).toHaveLength(100);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('airlock-rg-')).length).toBe(before);
  }, scaledMs(30_000));
});

describe('grep (auto engine) and the read rules', () => {
  it('judges the files it opens up to its limit, not the whole tree before searching', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${i % 10}/f${String(i).padStart(3, '0')}.txt`] = 'hit\n';
    const t = tree(files);
    const judged = new Set<string>();
    const counting: AccessCheck = ({ path }) => {
      if (path.endsWith('.txt')) judged.add(path);
      return undefined;
    };
    const { details } = await grep(t, 'auto', { pattern: 'hit', limit: 5 }, [counting]);
    expect(details.matches).toBe(5);
    expect(details.matchLimitReached).toBe(5);
    expect(judged.size).toBeLessThan(20);
  });
});

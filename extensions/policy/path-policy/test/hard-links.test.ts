import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HARD_LINK_RULE } from '../src/judge.js';
import type { RuleEntry } from '../src/index.js';
import { machine, policyFor, toolResources, type Machine } from './fixture.js';

/**
 * Issue 24 §6: node_modules/pkg/index.js installed by pnpm is a hard link into pnpm's store, so
 * a write through it changes the file for every project. Writing any regular file with more than
 * one name asks, whichever spelling reaches it and whichever tool writes, and only an allow rule
 * naming exactly that file lifts it.
 */

const made: Machine[] = [];
afterEach(() => {
  for (const m of made.splice(0)) rmSync(m.base, { recursive: true, force: true });
});

/** A machine with a store outside the project and names inside it: `link.txt` (one other name), `pkg/index.js` (three). */
function linked() {
  const m = machine();
  made.push(m);
  const put = (path: string, content = 'x') => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  };
  put(join(m.outside, 'store', 'f1'), 'module.exports = 1;');
  put(join(m.outside, 'data.txt'), 'outside');
  mkdirSync(join(m.root, 'node_modules', '.pnpm', 'pkg@1', 'node_modules', 'pkg'), { recursive: true });
  const inStore = join(m.root, 'node_modules', '.pnpm', 'pkg@1', 'node_modules', 'pkg', 'index.js');
  linkSync(join(m.outside, 'store', 'f1'), inStore);
  symlinkSync(join('.pnpm', 'pkg@1', 'node_modules', 'pkg'), join(m.root, 'node_modules', 'pkg'));
  linkSync(join(m.outside, 'store', 'f1'), join(m.root, 'copy-of-f1.js'));
  linkSync(join(m.outside, 'data.txt'), join(m.root, 'link.txt'));
  symlinkSync('link.txt', join(m.root, 'to-link'));
  return m;
}

const allow = (...rules: string[]): RuleEntry[] => rules.map((rule) => ({ effect: 'allow', rule }));

describe('writing a file with more than one name', () => {
  // Every spelling of each linked file, each written by every writing tool and by bash.
  const spellings = ['link.txt', 'to-link', './link.txt', 'node_modules/pkg/index.js', 'node_modules/.pnpm/pkg@1/node_modules/pkg/index.js', 'copy-of-f1.js', 'sub/../link.txt'];

  it.each(['write', 'edit'])('%s asks for every spelling of every linked file, and says why', async (tool) => {
    const m = linked();
    mkdirSync(join(m.root, 'sub'));
    for (const path of spellings) {
      const d = await policyFor(m).decide({ tool, args: { path }, resources: toolResources(tool, path, m) });
      expect(d.effect, `${tool} ${path}`).toBe('ask');
      expect(d.rule, `${tool} ${path}`).toBe(HARD_LINK_RULE);
      expect(d.reason).toMatch(/names \(hard links\) and the others may be outside the workspace/);
    }
  });

  it('bash asks for every way the analysis sees a write to one', async () => {
    const m = linked();
    for (const command of ['echo x >> link.txt', 'printf y > node_modules/pkg/index.js', 'cp README.md copy-of-f1.js', 'tee -a to-link < README.md', 'sed -i s/1/2/ node_modules/pkg/index.js']) {
      const d = await policyFor(m).decide({ tool: 'bash', args: { command }, resources: [{ kind: 'exec', command }] });
      expect(d.effect, command).toBe('ask');
      expect(d.rule, command).toBe(HARD_LINK_RULE);
    }
  });

  it('any tool that declares fs.write is judged the same way (ctx.access too)', async () => {
    const m = linked();
    const d = await policyFor(m).decide({ tool: 'upstream__write_file', args: {}, resources: [{ kind: 'fs.write', path: join(m.root, 'link.txt') }] });
    expect(d.rule).toBe(HARD_LINK_RULE);
    expect(policyFor(m).checkFile({ kind: 'fs.write', path: join(m.root, 'link.txt'), tool: 'x' }).rule).toBe(HARD_LINK_RULE);
  });

  it('reading one, and writing files with one name, new files and folders, are as before', async () => {
    const m = linked();
    const p = policyFor(m);
    expect((await p.decide({ tool: 'read', args: { path: 'link.txt' }, resources: toolResources('read', 'link.txt', m) })).effect).toBe('allow');
    for (const path of ['README.md', 'src/a.ts', 'new-file.txt', 'src/new/deeper.txt']) {
      const d = await p.decide({ tool: 'write', args: { path }, resources: toolResources('write', path, m) });
      expect(d.effect, path).toBe('allow');
    }
    // A folder always has several links (its subfolders' ".."): it is not a linked file.
    expect(p.checkFile({ kind: 'fs.write', path: join(m.root, 'src'), tool: 'x' }).effect).toBe('allow');
  });

  it('only an allow rule naming exactly the file lifts the ask; a deny rule still denies', async () => {
    const m = linked();
    const write = (rules: RuleEntry[]) => policyFor(m, rules).decide({ tool: 'write', args: { path: 'link.txt' }, resources: toolResources('write', 'link.txt', m) });
    for (const broad of [allow('fs.write(**)'), allow('write'), allow('write(/**)'), allow('fs.write(//**)')]) expect((await write(broad)).effect).toBe('ask');
    expect((await write(allow(`fs.write(/${join(m.root, 'link.txt')})`))).effect).toBe('allow');
    expect((await write([{ effect: 'deny', rule: 'fs.write(link.txt)' }])).effect).toBe('deny');
  });
});

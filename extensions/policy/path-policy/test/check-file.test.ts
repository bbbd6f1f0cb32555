import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalFilePaths, canonicalPaths } from '../src/paths/resolve.js';
import { machine, policyFor, type Machine } from './fixture.js';

/**
 * policy.checkFile: the verdict on one file a tool opens inside an authorized call (grep's walk),
 * which path-policy registers as its access check. It must judge a file exactly as `decide`
 * judges the same file named as an argument: secrets, symlinks, rules for the tool.
 */

const made: Machine[] = [];
afterEach(() => {
  for (const m of made.splice(0)) rmSync(m.base, { recursive: true, force: true });
});
function fresh(): Machine {
  const m = machine();
  made.push(m);
  return m;
}

describe('policy.checkFile', () => {
  it('denies the well-known secrets, allows ordinary files and templates', () => {
    const m = fresh();
    const p = policyFor(m);
    const check = (path: string) => p.checkFile({ kind: 'fs.read', path: join(m.root, path), tool: 'grep' });
    expect(check('.env')).toMatchObject({ effect: 'deny', rule: 'default:secret-read' });
    expect(check('.env.local').effect).toBe('deny');
    expect(check('src/server.pem').effect).toBe('deny');
    expect(check('.env.example').effect).toBe('allow');
    expect(check('src/a.ts')).toMatchObject({ effect: 'allow', rule: 'default:read-inside-roots' });
  });

  it('judges a symlink by where it leads: to a secret, through a linked folder, or out of the workspace', () => {
    const m = fresh();
    const p = policyFor(m);
    const check = (path: string) => p.checkFile({ kind: 'fs.read', path: join(m.root, path), tool: 'grep' });
    expect(check('innocent.txt').effect).toBe('deny'); // → .env
    expect(check('rel-env').effect).toBe('deny'); // → .env, relative link
    expect(check('keys/id_rsa').effect).toBe('deny'); // a folder link into ~/.ssh
    expect(check('link-out')).toMatchObject({ effect: 'ask', rule: 'default:read-outside-roots' });
    expect(check('out-dir/id_ed25519').effect).toBe('deny');
    expect(check('loop-a')).toMatchObject({ effect: 'deny', rule: 'default:unresolvable-path' });
  });

  it('agrees with decide on the same file named as the argument', async () => {
    const m = fresh();
    const p = policyFor(m, [{ effect: 'deny', rule: 'fs.read(/src/**)' }]);
    for (const path of ['.env', 'innocent.txt', 'link-out', 'src/a.ts', 'README.md', 'keys/config']) {
      const absolute = join(m.root, path);
      const decided = await p.decide({ tool: 'read', args: { path: absolute }, resources: [{ kind: 'fs.read', path: absolute, written: absolute }] });
      expect(p.checkFile({ kind: 'fs.read', path: absolute, tool: 'read' }).effect, path).toBe(decided.effect);
    }
  });

  it('applies rules written for the tool that asks, not for others; relative paths resolve against cwd', () => {
    const m = fresh();
    const p = policyFor(m, [{ effect: 'deny', rule: 'grep(/src/**)' }]);
    expect(p.checkFile({ kind: 'fs.read', path: 'src/a.ts', tool: 'grep', cwd: m.root }).effect).toBe('deny');
    expect(p.checkFile({ kind: 'fs.read', path: 'src/a.ts', tool: 'find', cwd: m.root }).effect).toBe('allow');
  });

  it('a folder under a ** deny rule is itself denied (find does not list it)', () => {
    const m = fresh();
    const p = policyFor(m, [{ effect: 'deny', rule: 'fs.read(/src/**)' }]);
    expect(p.checkFile({ kind: 'fs.read', path: join(m.root, 'src'), tool: 'find' }).effect).toBe('deny');
    expect(p.checkFile({ kind: 'fs.read', path: join(m.home, '.ssh'), tool: 'find' }).effect).toBe('deny');
  });

  it('the fast route for walked files gives the same spellings as the full resolution', () => {
    const m = fresh();
    const names = ['README.md', '.env', 'src/a.ts', 'innocent.txt', 'link-out', 'keys/id_rsa', 'out-dir/file.txt', 'dangling-out', 'rel-env', 'missing.txt', 'src/../.env', 'café.txt', 'loop-a'];
    for (const name of names) {
      const path = `${m.root}/${name}`;
      const full = canonicalPaths(path, m.root, m.home);
      const fast = canonicalFilePaths(path, m.root, m.home, new Map());
      expect(fast.ok, name).toBe(full.ok);
      if (fast.ok && full.ok) expect([...fast.paths].sort(), name).toEqual([...full.paths].sort());
    }
  });

  it('a folder swapped for a link to a secret folder is seen by the next call (folder cache is per call)', () => {
    const m = fresh();
    const p = policyFor(m);
    mkdirSync(`${m.root}/conf`);
    writeFileSync(`${m.root}/conf/config`, 'x');
    const check = (scope: number) => p.checkFile({ kind: 'fs.read', path: `${m.root}/conf/config`, tool: 'grep', scope });
    expect(check(1).effect).toBe('allow');
    renameSync(`${m.root}/conf`, `${m.root}/conf-old`);
    symlinkSync(`${m.home}/.ssh`, `${m.root}/conf`);
    expect(check(2)).toMatchObject({ effect: 'deny', rule: 'default:secret-read' });
  });
});

import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bubblewrapWorks, scaledMs } from '@airlock/kernel/testing';
import { sandbox } from './harness.js';

/**
 * Issue 24 §6: `node_modules/pkg/index.js` installed by pnpm shares its inode with the file in
 * pnpm's store, outside the workspace: bash appending to it inside the sandbox changed it for
 * every project on the machine. Now the in-process tools (write, edit) and the shell analysis
 * ask (nobody to ask here: denied), and the sandbox mounts such files read-only, so a command the
 * analysis cannot read (a script) cannot write through them either. Ordinary writes still work.
 */

const sandboxed = bubblewrapWorks();

function pnpmWorks(): boolean {
  try {
    execFileSync('pnpm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

type Machine = ReturnType<typeof sandbox>;

/** A command the shell analysis cannot read: the write is inside a script, so only the sandbox stands in the way. */
const appendByScript = (file: string) => `${JSON.stringify(process.execPath)} -e ${JSON.stringify(`require('fs').appendFileSync(${JSON.stringify(file)}, '// changed')`)}`;

/** What every linked file must withstand: bash seen and unseen by the analysis, write, edit. */
async function attempts(s: Machine, file: string) {
  const run = (tool: string, args: object) => s.airlock(['call', tool, JSON.stringify(args)]);
  return {
    shell: await run('bash', { command: `echo '// changed' >> ${file}` }),
    script: await run('bash', { command: appendByScript(file) }),
    write: await run('write', { path: file, content: '// changed\n' }),
    edit: await run('edit', { path: file, edits: [{ oldText: readFileSync(join(s.project, file), 'utf8').split('\n')[0], newText: '// changed' }] }),
  };
}

function expectRefused(r: Awaited<ReturnType<typeof attempts>>): void {
  for (const name of ['shell', 'write', 'edit'] as const) {
    expect(r[name].code, name).toBe(1);
    expect(r[name].stdout, name).toContain('(hard links) and the others may be outside the workspace');
    expect(r[name].stdout, name).toContain('default:hard-link');
  }
  if (sandboxed) expect(r.script.stdout).toMatch(/read-only file system[\s\S]*\[sandbox\] "Read-only file system".*hard links/i);
}

describe('writes through a hard link to a file outside the workspace', () => {
  it.skipIf(!pnpmWorks())('a package pnpm installed: the store keeps its bytes, whatever the tool', async () => {
    const s = sandbox();
    // A local package, packed by hand and installed offline into a store of the test's own.
    s.write('dep/package/package.json', { name: 'dep', version: '1.0.0', main: 'index.js' });
    s.write('dep/package/index.js', 'module.exports = 1;\n');
    execFileSync('tar', ['czf', join(s.base, 'dep-1.0.0.tgz'), '-C', join(s.base, 'dep'), 'package']);
    s.write('project/package.json', { name: 'proj', version: '1.0.0', dependencies: { dep: `file:${join(s.base, 'dep-1.0.0.tgz')}` } });
    execFileSync('pnpm', ['install', '--offline', '--store-dir', join(s.base, 'store')], { cwd: s.project, stdio: 'ignore', env: { ...process.env, HOME: s.home } });
    const installed = join(s.project, 'node_modules', 'dep', 'index.js');
    // pnpm copies instead of linking across file systems; then there is nothing to test here.
    if (statSync(installed).nlink < 2) return;

    const r = await attempts(s, 'node_modules/dep/index.js');
    expectRefused(r);
    if (sandboxed) expect(readFileSync(installed, 'utf8')).toBe('module.exports = 1;\n');

    // Everything else in the project is written as ever, by every tool.
    s.write('project/src/app.js', 'let a = 1;\n');
    const ok = await s.airlock(['call', 'bash', JSON.stringify({ command: `${appendByScript('src/app.js')} && echo made > new.txt && cat new.txt` })]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(s.project, 'src/app.js'), 'utf8')).toBe('let a = 1;\n// changed');
    expect((await s.airlock(['call', 'write', JSON.stringify({ path: 'src/b.js', content: 'b' })])).code).toBe(0);
    expect((await s.airlock(['call', 'edit', JSON.stringify({ path: 'src/app.js', edits: [{ oldText: 'let a = 1;', newText: 'let a = 2;' }] })])).code).toBe(0);
  }, scaledMs(120_000));

  it('a link made by hand to a file outside the workspace, at any depth', async () => {
    const s = sandbox();
    const outside = s.write('outside/notes.txt', 'outside\n');
    mkdirSync(join(s.project, 'docs', 'deeper'), { recursive: true });
    linkSync(outside, join(s.project, 'docs', 'deeper', 'notes.txt'));
    // Two names of one file, both in the workspace (cargo's target/ does this): writable inside the sandbox.
    writeFileSync(join(s.project, 'build-1234'), 'bin\n');
    linkSync(join(s.project, 'build-1234'), join(s.project, 'build'));

    expectRefused(await attempts(s, 'docs/deeper/notes.txt'));
    if (sandboxed) expect(readFileSync(outside, 'utf8')).toBe('outside\n');

    const inside = await s.airlock(['call', 'bash', JSON.stringify({ command: appendByScript('build') })]);
    expect(inside.code).toBe(0);
    expect(readFileSync(join(s.project, 'build-1234'), 'utf8')).toBe('bin\n// changed');
  }, scaledMs(120_000));
});

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openHost, type Host } from '@airlock/host';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { rmVerdict } from '../src/recursive-rm.js';

const EXAMPLE = fileURLToPath(new URL('..', import.meta.url));

/**
 * The example as a user loads it: its own airlock.settings.json, a real project folder with a
 * folder tree in it, the default extensions (the real bash tool and its shell analysis), and
 * calls that either leave the tree standing or remove what they name.
 */
const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function project() {
  const root = makeTempDir('airlock-deny-rm-rf-');
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(join(dir, 'build', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'build', 'deep', 'out.txt'), 'x\n');
  writeFileSync(join(dir, 'notes.txt'), 'n\n');
  const host = await openHost({
    cwd: dir,
    settingsFile: join(EXAMPLE, 'airlock.settings.json'),
    trust: true,
    interactive: false,
    homeDir: home,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  hosts.push(host);
  const bash = (command: string) => host.execute({ id: 'c1', name: 'bash', arguments: { command } });
  return { dir, host, bash };
}

describe('examples/deny-rm-rf', () => {
  it('loads from its settings file as a policy extension', async () => {
    const { host } = await project();
    expect(host.blocked).toBeUndefined();
    expect(host.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(host.extensions.loaded.map((e) => e.name)).toContain('deny-rm-rf');
  });

  it.each([
    'rm -rf build',
    'rm -fr build',
    'rm -r -f build',
    'rm build -rf',
    'rm --recursive --force build',
    'rm --rec build',
    '/bin/rm -Rf build',
    'sudo rm -rf build',
    'true && rm -rf build',
    'echo $(rm -rf build)',
    'bash -c "rm -rf build"',
    "r''m -rf build",
    'busybox rm -rf build',
    'echo build | xargs rm -rf',
    'find . -maxdepth 0 -exec rm -rf build {} +',
    'eval "rm -rf build"',
    'command rm -rf build',
    'time nice env rm -rf build',
  ])('denies %s, and the tree stays', async (command) => {
    const { dir, bash } = await project();
    const result = await bash(command);
    expect(result.outcome).toBe('denied');
    expect(JSON.stringify(result.content)).toContain('recursive rm is not allowed here');
    expect(existsSync(join(dir, 'build', 'deep', 'out.txt'))).toBe(true);
  }, scaledMs(20_000));

  it('asks (a deny with nobody to ask) when the options are only known at run time', async () => {
    const { dir, bash } = await project();
    const result = await bash('FLAGS=-rf; rm $FLAGS build');
    expect(result.outcome).toBe('denied');
    expect(JSON.stringify(result.content)).toContain('may be recursive');
    expect(existsSync(join(dir, 'build'))).toBe(true);
  }, scaledMs(20_000));

  it('lets an ordinary rm of a file, and other commands, run', async () => {
    const { dir, bash } = await project();
    expect((await bash('rm notes.txt')).outcome).toBe('ok');
    expect(existsSync(join(dir, 'notes.txt'))).toBe(false);
    const ls = await bash('ls build');
    expect(ls.outcome).toBe('ok');
    expect(JSON.stringify(ls.content)).toContain('deep');
    // -- ends the options: "-r" here is a file name, not a flag.
    writeFileSync(join(dir, '-r'), '');
    expect((await bash('rm -- -r')).outcome).toBe('ok');
    expect(existsSync(join(dir, '-r'))).toBe(false);
  }, scaledMs(20_000));

  it('reads rm options the way GNU rm does', () => {
    const v = (...argv: string[]) => rmVerdict({ name: argv[0]!.split('/').pop()!, argv, dynamicArgs: [] });
    expect(v('rm', '-v', 'x')).toBe('no');
    expect(v('rm', '--force', 'x')).toBe('no');
    expect(v('rm', '--', '-rf')).toBe('no');
    expect(v('rm', '-vR', 'x')).toBe('recursive');
    expect(v('rm', '--r', 'x')).toBe('recursive');
    expect(v('rmdir', '-p', 'x')).toBe('no');
    expect(rmVerdict({ name: 'rm', argv: ['rm', '$F', 'x'], dynamicArgs: [1] })).toBe('unknown');
  });
});

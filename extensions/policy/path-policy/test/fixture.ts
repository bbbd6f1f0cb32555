import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Resource } from '@airlock/contract';
import { createPolicy, loadShell, type Policy, type PolicyOptions, type RuleEntry } from '../src/index.js';
import { makeTempDir } from '@airlock/kernel/testing';

/**
 * A throw-away machine: a project root, a home folder with secrets, a folder outside both, and
 * real symlinks between them. Paths are real (tmp may itself be a symlink, e.g. on macOS).
 */
export function machine() {
  const base = makeTempDir('path-policy-');
  const root = join(base, 'proj');
  const home = join(base, 'home');
  const outside = join(base, 'outside');
  const put = (path: string, content = 'x') => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  };
  put(join(root, 'README.md'), '# hi');
  put(join(root, '.env'), 'TOKEN=1');
  put(join(root, '.env.local'), 'TOKEN=2');
  put(join(root, '.env.example'), 'TOKEN=');
  put(join(root, 'src/a.ts'), 'export {}');
  put(join(root, 'src/server.pem'), '-----BEGIN');
  put(join(root, 'café.txt'.normalize('NFC')), 'nfc');
  put(join(root, 'package.json'), '{}');
  put(join(home, '.ssh/id_rsa'), 'KEY');
  put(join(home, '.ssh/config'), 'Host x');
  put(join(home, '.aws/credentials'), '[default]');
  put(join(home, '.bashrc'), 'PS1=');
  put(join(home, '.npmrc'), '//registry/:_authToken=x');
  put(join(home, '.kube/config'), 'x');
  put(join(home, '.docker/config.json'), '{}');
  put(join(home, 'notes.txt'), 'x');
  put(join(outside, 'file.txt'), 'x');
  put(join(outside, 'id_ed25519'), 'KEY');
  symlinkSync(join(outside, 'file.txt'), join(root, 'link-out'));
  symlinkSync(join(root, '.env'), join(root, 'innocent.txt'));
  symlinkSync(join(home, '.ssh'), join(root, 'keys'));
  symlinkSync(outside, join(root, 'out-dir'));
  symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
  symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
  symlinkSync(join(outside, 'new-file.txt'), join(root, 'dangling-out'));
  symlinkSync(join(root, 'src/a.ts'), join(root, 'link-in'));
  symlinkSync('.env', join(root, 'rel-env'));
  mkdirSync(join(root, 'empty'));
  return { base, root, home, outside };
}

export type Machine = ReturnType<typeof machine>;

/** A policy over the machine; `fold` simulates the case probe's answer for every folder. */
export function policyFor(m: Machine, rules: RuleEntry[] = [], extra: Partial<PolicyOptions> & { fold?: boolean } = {}): Policy {
  const { fold, ...rest } = extra;
  return createPolicy({
    rules,
    cwd: m.root,
    home: m.home,
    caseFolding: () => fold ?? false,
    loadShell,
    ...rest,
  });
}

/** The resources the built-in file tools declare: the real path (or the path as given if missing), and the path as written. */
export function toolResources(tool: string, path: string | undefined, m: Machine): Resource[] {
  if (path === undefined || path.includes('\0')) return [];
  const kind = tool === 'write' || tool === 'edit' ? 'fs.write' : 'fs.read';
  const expanded = path.startsWith('~/') ? join(m.home, path.slice(2)) : path;
  const absolute = expanded.startsWith('/') ? expanded : join(m.root, expanded);
  let real = absolute;
  try {
    real = realpathSync(absolute);
  } catch {
    // Missing or a loop: the tools report the path as given.
  }
  // As the built-in tools declare it: the real file, and the path as the model wrote it.
  return [{ kind, path: real, written: path }];
}

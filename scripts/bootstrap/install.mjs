// Is node_modules what pnpm-lock.yaml says? Compared by content, not by time: a git checkout that
// rewrites the lockfile with the same text must not cost an install, and one that brings a
// different lockfile must, whatever the clock says. Hashing the ~200 KB lockfile takes about 1 ms.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The files whose content decides what `pnpm install` puts in node_modules. */
const INSTALL_INPUTS = ['pnpm-lock.yaml', 'pnpm-workspace.yaml'];

/** A digest of the install's inputs, as recorded in the stamp after an install. */
export function installDigest(root) {
  const hash = createHash('sha256');
  for (const name of INSTALL_INPUTS) {
    const file = join(root, name);
    hash.update(`${name}\0${existsSync(file) ? readFileSync(file) : ''}\0`);
  }
  return hash.digest('hex');
}

/**
 * `{ needed: false }`, or `{ needed: true, reason }` in words for the person waiting. An install
 * nobody recorded (a developer's own `pnpm install`, CI's) is redone once: with everything in
 * place pnpm finishes it in a fraction of a second, and the stamp then vouches for it.
 */
export function installState(root, stamp) {
  if (!existsSync(join(root, 'pnpm-lock.yaml'))) {
    throw new Error(`${join(root, 'pnpm-lock.yaml')} is missing: it pins every package the workspace installs. Restore it (git checkout pnpm-lock.yaml) and run the command again.`);
  }
  if (!existsSync(join(root, 'node_modules', '.modules.yaml'))) return { needed: true, reason: 'no node_modules yet' };
  if (stamp.install === undefined) return { needed: true, reason: 'node_modules was installed outside this script; checking it against pnpm-lock.yaml' };
  if (stamp.install !== installDigest(root)) return { needed: true, reason: 'pnpm-lock.yaml changed since the last install' };
  return { needed: false };
}

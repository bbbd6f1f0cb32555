// What the bootstrap last did, kept in node_modules/.airlock-bootstrap.json: the lockfile it
// installed, the sources it built, the pnpm it fetched. It lives in node_modules so that removing
// node_modules (the usual "start over") forgets it too: the next run then installs and builds.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = join('node_modules', '.airlock-bootstrap.json');

/** The stamp, or `{}` when there is none or it cannot be read (then everything is redone once). */
export function readStamp(root) {
  const file = join(root, FILE);
  if (!existsSync(file)) return {};
  try {
    const value = JSON.parse(readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

/**
 * Merges `fields` into the stamp. Written to a temp file and renamed, so a second bootstrap
 * running at the same time never reads half a file. Needs node_modules: nothing to remember before
 * the first install.
 */
export function updateStamp(root, fields) {
  if (!existsSync(join(root, 'node_modules'))) return;
  const file = join(root, FILE);
  const next = { ...readStamp(root), ...fields };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(temp, file);
}

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { schemaProblemLines } from '@airlock/toolkit/util';

/**
 * What `airlock extensions add` pinned, in `airlock-lock.json` beside the settings file that
 * names the packages: for each, the version, where it came from, npm's integrity of what was
 * fetched, and a digest of the package's own files as they landed. The loader checks the digest
 * before any code of the package runs: a package that changed under the same version (a tarball
 * swapped on a registry, a file edited in node_modules) does not load until it is added again.
 */

/** The lock file's name; it sits in the folder of the settings file that names the packages. */
export const LOCK_FILE = 'airlock-lock.json';

export const LockedPackageSchema = Type.Object({
  version: Type.String(),
  /**
   * `registry`: fetched by name; `tarball`: a .tgz on disk; `folder`: a link to a folder (its
   * files are yours to change, so they are not pinned); `airlock`: the copy inside the installed
   * CLI (it is Airlock itself, so it is as trusted as the CLI that runs).
   */
  source: Type.Union([Type.Literal('registry'), Type.Literal('tarball'), Type.Literal('folder'), Type.Literal('airlock')]),
  /** Where npm got it (a registry URL or the tarball's path). */
  resolved: Type.Optional(Type.String()),
  /** npm's integrity of the fetched tarball (`sha512-…`). */
  integrity: Type.Optional(Type.String()),
  /** `packageFilesDigest` of the installed folder; what the loader checks. Absent for `folder` and `airlock`. */
  files: Type.Optional(Type.String()),
});
export type LockedPackage = Static<typeof LockedPackageSchema>;

export const LockSchema = Type.Object({
  lockfileVersion: Type.Literal(1),
  packages: Type.Record(Type.String(), LockedPackageSchema),
});
export type Lock = Static<typeof LockSchema>;

/** The lock file beside a settings file. */
export function lockFileFor(settingsFile: string): string {
  return join(dirname(settingsFile), LOCK_FILE);
}

/**
 * The lock beside `settingsFile`: undefined when there is none, an error (a value) when it cannot
 * be read or is not a lock, so the caller refuses what it would pin instead of trusting it.
 *
 * @example
 * const lock = readLock('/p/.airlockrc.json'); // { lockfileVersion: 1, packages: { '@acme/guard': … } }
 */
export function readLock(settingsFile: string): Lock | undefined | { error: string } {
  const file = lockFileFor(settingsFile);
  if (!existsSync(file)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { error: `${file} is not JSON (${(error as Error).message})` };
  }
  if (!Value.Check(LockSchema, data)) {
    return { error: `${file} is not an Airlock lock file: ${schemaProblemLines(LockSchema, data).join('; ')}` };
  }
  return data;
}

/** Write (or rewrite) one package's pin in the lock beside `settingsFile`; `undefined` takes it out. */
export function writeLockEntry(settingsFile: string, name: string, pin: LockedPackage | undefined): string {
  const file = lockFileFor(settingsFile);
  const read = readLock(settingsFile);
  // A broken lock is replaced: the command writing it has just checked what it pins.
  const lock: Lock = read === undefined || 'error' in read ? { lockfileVersion: 1, packages: {} } : read;
  if (pin === undefined) delete lock.packages[name];
  else lock.packages[name] = pin;
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  return file;
}

/**
 * A digest of a package's own files (not its node_modules): each file's path, relative and with
 * `/`, and its contents, in path order. Deterministic across machines and install tools, so the
 * pin made at `extensions add` holds wherever the package lands. Symbolic links count by where
 * they point.
 *
 * @example packageFilesDigest('/p/node_modules/@acme/guard') // 'sha512-Vb4…'
 */
export function packageFilesDigest(dir: string): string {
  const files: { path: string; full: string; link?: string }[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === '.git') continue;
      const full = join(folder, entry.name);
      const path = relative(dir, full).split(sep).join('/');
      if (entry.isDirectory()) walk(full);
      else if (entry.isSymbolicLink()) files.push({ path, full, link: readlinkText(full) });
      else if (entry.isFile()) files.push({ path, full });
    }
  };
  walk(dir);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha512');
  for (const f of files) {
    hash.update(`${f.path}\0`);
    hash.update(f.link !== undefined ? `link:${f.link}` : readFileSync(f.full));
    hash.update('\0');
  }
  return `sha512-${hash.digest('base64')}`;
}

function readlinkText(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** Why an installed package no longer matches its pin, or undefined when it does (or is not pinned). */
export type LockMismatch =
  | { kind: 'unreadable'; lockFile: string; reason: string }
  | { kind: 'version'; lockFile: string; pinned: string; installed: string }
  | { kind: 'files'; lockFile: string; version: string };

/**
 * Check an installed package against the lock beside the settings file that named it. Only
 * packages with a `files` pin are checked, so a folder you develop in and Airlock's own copy
 * load as they are.
 *
 * @example checkLockedPackage('/p/.airlockrc.json', '@acme/guard', '1.0.0', '/p/node_modules/@acme/guard') // undefined
 */
export function checkLockedPackage(settingsFile: string, name: string, version: string, dir: string): LockMismatch | undefined {
  const lock = readLock(settingsFile);
  if (lock === undefined) return undefined;
  const lockFile = lockFileFor(settingsFile);
  if ('error' in lock) return { kind: 'unreadable', lockFile, reason: lock.error };
  const pin = lock.packages[name];
  if (pin === undefined || pin.files === undefined) return undefined;
  if (pin.version !== version) return { kind: 'version', lockFile, pinned: pin.version, installed: version };
  if (packageFilesDigest(dir) !== pin.files) return { kind: 'files', lockFile, version };
  return undefined;
}

import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic } from '@airlock/contract';
import { diagnostic, errorText } from '../extensions/diagnostics.js';
import { airlockConfigDir } from '../extensions/dirs.js';

/**
 * The per-user record of trusted (and explicitly untrusted) project folders:
 * `$XDG_CONFIG_HOME/airlock/trust.json`, `{ "version": 1, "entries": [{ path, trusted, at }] }`.
 *
 * - Keyed by REAL path: trusting `~/work` covers `~/work/app`, but a symlink `~/work/evil` that
 *   points at a cloned repo elsewhere resolves to that repo and is not covered (a lexical
 *   prefix check would let the link borrow the parent's trust).
 * - Written atomically (temp file + rename) with mode 0600, so a crash never leaves half a file
 *   and other users cannot read which folders you trust.
 * - Read fail-closed: a file that does not parse, or that someone else could have written
 *   (not yours, or group/world-writable — as ssh treats authorized_keys), trusts nothing.
 */

export interface TrustEntry {
  /** A real (symlink-free) absolute path. */
  path: string;
  trusted: boolean;
  /** ISO time of the decision. */
  at: string;
}

export interface TrustStore {
  file: string;
  entries: TrustEntry[];
  /** Why the file was ignored, if it was. */
  diagnostics: Diagnostic[];
}

/**
 * @example
 * defaultTrustFile({ XDG_CONFIG_HOME: '/home/me/.config' }); // '/home/me/.config/airlock/trust.json'
 */
export function defaultTrustFile(env: Readonly<Record<string, string | undefined>> = process.env, home?: string): string {
  return join(home === undefined ? airlockConfigDir(env) : airlockConfigDir(env, home), 'trust.json');
}

/**
 * Read the trust file. A missing file is simply empty; a broken or insecure one is empty too,
 * with a diagnostic saying why.
 *
 * @example
 * const { entries, diagnostics } = readTrustStore(defaultTrustFile());
 */
export function readTrustStore(file: string): TrustStore {
  const empty = (d?: Diagnostic): TrustStore => ({ file, entries: [], diagnostics: d ? [d] : [] });
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    return empty(diagnostic('AIRLOCK_TRUST_FILE_INVALID', {}, { trustFile: file, reason: errorText(error) }));
  }
  const insecure = insecurity(stat);
  if (insecure) return empty(diagnostic('AIRLOCK_TRUST_FILE_INSECURE', {}, { trustFile: file, reason: insecure }));
  try {
    return { file, entries: parseTrust(readFileSync(file, 'utf8')), diagnostics: [] };
  } catch (error) {
    return empty(diagnostic('AIRLOCK_TRUST_FILE_INVALID', {}, { trustFile: file, reason: errorText(error) }));
  }
}

/**
 * The decision that covers `dir`: the entry for the folder itself or its nearest parent, so an
 * explicit "untrusted" for a subfolder wins over a trusted parent.
 *
 * @example
 * findTrust('/home/me/work/app', entries); // the entry for /home/me/work, if there is one
 */
export function findTrust(dir: string, entries: readonly TrustEntry[]): TrustEntry | undefined {
  const byPath = new Map(entries.map((e) => [e.path, e] as const));
  for (let current = realDir(dir); ; ) {
    const hit = byPath.get(current);
    if (hit) return hit;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Record a decision for `dir` (and so for its subfolders): what `airlock trust [dir]` and
 * `airlock trust --revoke [dir]` call. The folder must exist; its real path is stored.
 *
 * @example
 * await setTrust('.', true);                      // trust the current folder
 * await setTrust('~/clones/x', false, { trustFile }); // remember "untrusted"
 */
export async function setTrust(dir: string, trusted: boolean, options: { trustFile?: string; now?: Date } = {}): Promise<TrustEntry> {
  const file = options.trustFile ?? defaultTrustFile();
  let path: string;
  try {
    path = realpathSync.native(resolve(dir));
  } catch (error) {
    throw new Error(`Cannot ${trusted ? 'trust' : 'untrust'} ${resolve(dir)}: ${errorText(error)}. Name an existing folder.`, { cause: error });
  }
  if (!statSync(path).isDirectory()) throw new Error(`Cannot ${trusted ? 'trust' : 'untrust'} ${path}: it is not a folder.`);

  const current = readTrustStore(file);
  const problem = current.diagnostics[0];
  if (problem) {
    // Rewriting a file someone else may have edited would keep their entries under our name.
    throw new Error(`${problem.message}`);
  }
  const entry: TrustEntry = { path, trusted, at: (options.now ?? new Date()).toISOString() };
  const entries = [...current.entries.filter((e) => e.path !== path), entry].sort((a, b) => a.path.localeCompare(b.path));
  await writeAtomically(file, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`);
  return entry;
}

/** A path with symlinks resolved; a folder that does not exist keeps its absolute form. */
export function realDir(dir: string): string {
  try {
    return realpathSync.native(resolve(dir));
  } catch {
    return resolve(dir);
  }
}

function parseTrust(text: string): TrustEntry[] {
  const data = JSON.parse(text) as unknown;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('expected an object { "version": 1, "entries": [...] }');
  const { version, entries } = data as { version?: unknown; entries?: unknown };
  if (version !== 1) throw new Error(`unknown version ${JSON.stringify(version)} (this Airlock writes version 1)`);
  if (!Array.isArray(entries)) throw new Error('"entries" must be an array');
  return entries.map((e: unknown, i) => {
    const x = e as Partial<TrustEntry> | null;
    if (typeof x !== 'object' || x === null || typeof x.path !== 'string' || !isAbsolute(x.path) || typeof x.trusted !== 'boolean' || typeof x.at !== 'string') {
      throw new Error(`entries[${i}] must be { "path": "<absolute path>", "trusted": true|false, "at": "<ISO time>" }`);
    }
    return { path: x.path, trusted: x.trusted, at: x.at };
  });
}

/** Why a file that others could have written cannot be believed; undefined when it is fine. */
function insecurity(stat: Stats): string | undefined {
  // POSIX only: Windows has no uid and mode bits that mean this.
  if (typeof process.getuid !== 'function') return undefined;
  const uid = process.getuid();
  if (stat.uid !== uid) return `it belongs to user id ${stat.uid}, not to you (${uid})`;
  if ((stat.mode & 0o022) !== 0) return `other users may write to it (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = join(dirname(file), `.${randomBytes(6).toString('hex')}.trust.json.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // The umask may have narrowed the mode; set exactly 0600.
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

import { closeSync, fstatSync, openSync, opendirSync, readSync, constants } from 'node:fs';
import { basename, join } from 'node:path';
import { plausibleSecretValue } from './assignments.js';
import { looksSecretName } from './names.js';

/**
 * The values in this user's own secret files, to be redacted wherever they show up (git history,
 * a log, a tool's error message), whatever their shape: the second line of defence behind the
 * policy's secret-file rules. Read once, kept in memory only, never written or logged.
 */
export interface FileSecret {
  /** Where it was found, for the placeholder: `~/.aws/credentials:aws_secret_access_key`. */
  name: string;
  value: string;
}

/** Files under the home folder that hold credentials by their fixed names (a subset of the policy's secret list: the ones that are single files). */
export const HOME_SECRET_FILES: readonly string[] = Object.freeze([
  '.aws/credentials',
  '.docker/config.json',
  '.kube/config',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.pgpass',
  '.git-credentials',
  '.config/gh/hosts.yml',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
]);

/** Names looked for in the workspace folder itself (not below it: a walk of a large tree is not worth the first result's delay). */
const WORKSPACE_SECRET_FILES: readonly string[] = ['.env', '.envrc', '.netrc', '.pgpass', '.git-credentials', '.npmrc', '.pypirc'];
/** `.env.local`, `.env.production`, …: the only names that need the folder listed. */
const ENV_VARIANT = /^\.env\..+$/;
/** Names of the workspace folder looked at for `.env.*`: a folder of millions of names is not read whole. */
const MAX_LISTED = 100_000;
/** Committed templates: by convention they hold no secrets. */
const TEMPLATE = /\.(?:example|sample|template|dist|defaults)$/;

/** Caps: a pathological folder or file costs at most this much, once per session. */
export const FILE_VALUE_LIMITS = Object.freeze({ files: 32, bytesPerFile: 64 * 1024, values: 256, minLength: 8, maxLength: 8192 });

/** `KEY=value`, `export KEY="value"`, `key = value`, `//host/:_authToken=value` (dotenv, INI, npmrc). */
const EQUALS_PAIR = /^\s*(?:export\s+)?([^\s="'#;]+)\s*=(.*)$/;
/** `key: value`, `"key": "value",` (YAML, JSON one pair a line). */
const COLON_PAIR = /^\s*(?:-\s+)?["']?([A-Za-z0-9_.\-@]+)["']?\s*:(.*)$/;

function unquote(raw: string): string {
  const q = raw[0];
  if ((q === '"' || q === "'") && raw.endsWith(q) && raw.length >= 2) return raw.slice(1, -1);
  // An unquoted value ends at a comment.
  const at = raw.search(/\s#/);
  return at === -1 ? raw : raw.slice(0, at).trimEnd();
}

/** A value worth hunting for: long enough, not a reference to another value, and secret by its key or by its look. */
function keep(key: string, value: string): boolean {
  if (value.length < FILE_VALUE_LIMITS.minLength || value.length > FILE_VALUE_LIMITS.maxLength) return false;
  if (/^\$|^\{\{|^<.*>$|^(?:true|false|null|none)$/i.test(value)) return false;
  // A file path names where a secret is, not the secret.
  if (/^(?:~|\.{1,2})?\/[^\s]*$/.test(value)) return false;
  return looksSecretName(key) || plausibleSecretValue(value);
}

/**
 * The secret-looking values in one file's text. Formats by name: netrc (`password X`), pgpass
 * (the last field), git-credentials (a URL's password), a vault token (the whole file); anything
 * else line by line as `key = value` pairs (dotenv, INI, YAML, JSON written one pair a line).
 *
 * @example valuesIn('.env', 'DB_PASSWORD=hunter2hunter2\nDEBUG=true') // [{ key: 'DB_PASSWORD', value: 'hunter2hunter2' }]
 */
export function valuesIn(file: string, text: string): { key: string; value: string }[] {
  const name = basename(file);
  const out: { key: string; value: string }[] = [];
  const add = (key: string, value: string, force = false) => {
    if (force ? value.length >= FILE_VALUE_LIMITS.minLength && value.length <= FILE_VALUE_LIMITS.maxLength : keep(key, value)) out.push({ key, value });
  };
  if (name === '.vault-token') {
    add('token', text.trim(), true);
    return out;
  }
  if (name === '.netrc') {
    const words = text.split(/\s+/);
    words.forEach((w, i) => {
      if ((w === 'password' || w === 'account') && words[i + 1]) add('password', words[i + 1]!, true);
    });
    return out;
  }
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(?:#|;|\/\/\s)/.test(line) && name !== '.npmrc') continue;
    if (name === '.pgpass') {
      const fields = line.split(/(?<!\\):/);
      if (fields.length >= 5) add('password', fields.slice(4).join(':').replace(/\\(.)/g, '$1'), true);
      continue;
    }
    if (name === '.git-credentials') {
      const m = /^[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:([^@\s]+)@/i.exec(line.trim());
      if (m) {
        add('password', m[1]!, true);
        try {
          const decoded = decodeURIComponent(m[1]!);
          if (decoded !== m[1]) add('password', decoded, true);
        } catch {
          // Not percent-encoded after all: the raw form is kept.
        }
      }
      continue;
    }
    // Greedy captures trimmed here: a lazy `(.*?)\s*$` would be quadratic on a long line of spaces.
    if (line.length > FILE_VALUE_LIMITS.maxLength + 256) continue;
    const eq = EQUALS_PAIR.exec(line);
    const m = eq ?? COLON_PAIR.exec(line);
    if (m) add(m[1]!, unquote(eq ? m[2]!.trim() : m[2]!.trim().replace(/,$/, '').trim()));
  }
  return out;
}

/** Reads at most `limit` bytes of a regular file; undefined for anything else (a FIFO, a device, a folder, a missing file). */
function readSmallFile(path: string, limit: number): string | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking: a FIFO planted under a secret's name must not hang the first result.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > limit) return undefined;
    const buffer = Buffer.alloc(st.size);
    const n = readSync(fd, buffer, 0, st.size, 0);
    return buffer.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The files whose values are loaded: the fixed ones under `home`, and in `workspace` itself the
 * well-known secret names (`.env`, `.env.*` but not templates, `.envrc`, `.netrc`, …); `.env.*`
 * among the first 100,000 names of the folder (a folder is listed a batch at a time).
 * A file that is a symlink is skipped (O_NOFOLLOW): it is the file a name leads to that matters,
 * and a link could lead to a FIFO or a huge file.
 */
export function secretFileCandidates(home: string | undefined, workspace: string | undefined): string[] {
  const files: string[] = [];
  if (home) files.push(...HOME_SECRET_FILES.map((f) => join(home, f)));
  if (workspace) {
    // The fixed names are opened as they are (a missing one is skipped when read); only the
    // `.env.*` variants are looked for in the listing, read a batch at a time and bounded.
    files.push(...WORKSPACE_SECRET_FILES.map((f) => join(workspace, f)));
    const variants: string[] = [];
    try {
      const dir = opendirSync(workspace, { bufferSize: 256 });
      try {
        let listed = 0;
        for (let entry = dir.readSync(); entry !== null && listed < MAX_LISTED; entry = dir.readSync(), listed++) {
          if (ENV_VARIANT.test(entry.name) && !TEMPLATE.test(entry.name)) variants.push(entry.name);
        }
      } finally {
        dir.closeSync();
      }
    } catch {
      // No workspace folder to read: only the home files.
    }
    files.push(...variants.sort().map((name) => join(workspace, name)));
  }
  return [...new Set(files)].slice(0, FILE_VALUE_LIMITS.files);
}

/**
 * Load the secret values of this user's secret files (see secretFileCandidates), longest first,
 * at most FILE_VALUE_LIMITS.values of them. Synchronous and bounded: at most 32 files of 64 KiB.
 *
 * @example loadFileSecrets({ home: '/home/u', workspace: '/work/app' }) // [{ name: '~/.aws/credentials:aws_secret_access_key', value: '…' }]
 */
export function loadFileSecrets(where: { home?: string; workspace?: string }): FileSecret[] {
  const found = new Map<string, FileSecret>();
  for (const file of secretFileCandidates(where.home, where.workspace)) {
    const text = readSmallFile(file, FILE_VALUE_LIMITS.bytesPerFile);
    if (text === undefined) continue;
    const shown = where.home && file.startsWith(`${where.home}/`) ? `~/${file.slice(where.home.length + 1)}` : basename(file);
    for (const { key, value } of valuesIn(file, text)) {
      if (found.size >= FILE_VALUE_LIMITS.values) break;
      if (!found.has(value)) found.set(value, { name: `${shown}:${key}`, value });
    }
  }
  return [...found.values()].sort((a, b) => b.value.length - a.value.length);
}

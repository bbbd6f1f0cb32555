/**
 * Finding and reading settings files with cosmiconfig 9 (module name `airlock`).
 *
 * Why each choice:
 * - cosmiconfig's 'project' strategy stops at the first package.json, so from `packages/x/` it
 *   never sees a config at the repository root. We walk up ourselves and search each folder with
 *   strategy 'none', from the cwd to the filesystem root, stopping at the home folder (which is
 *   not a project: user settings live in the XDG file) and skipping the user config folder.
 * - TS/JS configs load through jiti: cosmiconfig's own `.ts` loader needs TypeScript 5's
 *   compiler API and cannot follow a relative import. `moduleCache: false` so a second load in
 *   the same process sees edits (jiti's module cache is shared by every jiti instance).
 * - Finding runs no code: TS/JS files are only located, and run later by readSettingsFile, so the
 *   host can ask about project trust first (a config file is code, like an extension).
 * - Project settings come only from Airlock's own files (.airlockrc*, airlock.config.*), which no
 *   tool may write. A package.json whose `airlock` field is settings is refused (an agent edits
 *   package.json routinely); one whose field is an extension manifest (`extension`, `kernel`,
 *   `provides`) belongs to an extension package and is passed over.
 * - The search is ours, not cosmiconfig's: cosmiconfig's search reads a meta config
 *   (package.json#cosmiconfig, .config/config.*) that can add search places. We only `load`.
 * - An empty settings file counts as found (empty settings), so it stops the walk up.
 * Inherited from cosmiconfig, kept: `$import` (a file may import base files, merged by
 * cosmiconfig; paths in the result resolve against the importing file).
 */
import { readFile, stat } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { cosmiconfig, defaultLoaders, type CosmiconfigResult, type Loader } from 'cosmiconfig';
import type { Jiti } from 'jiti';
import {
  firstLineOf,
  invalidSettings,
  settingsFileNotFound,
  settingsLoadFailed,
  settingsInPackageJson,
  settingsSyntaxError,
  SettingsError,
  unreadableSettings,
  unsafeSettingsFile,
  type SettingsLayerName,
  type SettingsSource,
} from './errors.js';
import { settingsFileSafety } from './file-safety.js';

export const MODULE_NAME = 'airlock';

/**
 * Where project settings are looked for in each folder, first match wins. Only Airlock's own
 * files: no tool may write them (protected paths). package.json's `airlock` field is refused
 * (refuseSettingsInPackageJson): an agent edits package.json routinely.
 */
export const SEARCH_PLACES = [
  '.airlockrc', // JSON or YAML
  '.airlockrc.json',
  '.airlockrc.yaml',
  'airlock.config.ts',
  'airlock.config.js',
  'airlock.config.mjs',
] as const;

/** Files that are code: loading one runs it (through jiti). */
const CODE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
/** Files cosmiconfig parses as data ('' = no extension: YAML, which includes JSON). */
const DATA_EXTENSIONS = ['.json', '.yaml', '.yml', ''];

/** The project settings file discovery found. Code files have not run yet. */
export interface ProjectSettingsFile {
  file: string;
  /** The folder it is in: the project folder. */
  dir: string;
  /** 'code': loading runs it (a TS/JS file, or a data file that `$import`s one). 'data': parsed only. */
  kind: 'data' | 'code';
  /** Set when the settings sit under a field of the file: package.json → 'airlock'. */
  field?: string;
  /** 'data' files: the parsed values (`{}` for an empty file). 'code' files: call readSettingsFile. */
  values?: unknown;
}

/** A settings file's raw (not yet validated) values. */
export interface RawSettings {
  values: unknown;
  field?: string;
}

export interface SearchBoundaries {
  /** The walk up stops here: the home folder is not searched, nor anything above it. */
  homeDir: string;
  /** The user-level config folder (`~/.config/airlock`): never a project. */
  userConfigDir: string;
}

/**
 * The folders searched for project settings, nearest first: from `cwd` up to the repository root
 * (the nearest folder holding `.git`, included) or the home folder (not included), whichever
 * comes first. With neither above it, only `cwd` itself: a folder such as /tmp, which anyone may
 * write to, must not hand its settings to every project below it.
 *
 * @example
 * projectSearchDirs('/home/u/repo/pkg', { homeDir: '/home/u', userConfigDir: '/home/u/.config/airlock' })
 * // ['/home/u/repo/pkg', '/home/u/repo']   (or ['/home/u/repo/pkg'] if pkg holds .git)
 * projectSearchDirs('/tmp/x/y', { homeDir: '/home/u', userConfigDir: '/home/u/.config/airlock' }) // ['/tmp/x/y'] without a .git
 */
export function projectSearchDirs(cwd: string, { homeDir, userConfigDir }: SearchBoundaries): string[] {
  const home = resolve(homeDir);
  const skip = resolve(userConfigDir);
  const start = resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; dir !== home; ) {
    if (dir !== skip) dirs.push(dir);
    if (existsSync(join(dir, '.git'))) return dirs;
    const parent = dirname(dir);
    // The filesystem root without a repository root or the home folder on the way: no boundary we can trust.
    if (parent === dir) return start === skip ? [] : [start];
    dir = parent;
  }
  return dirs;
}

/**
 * Find the project settings: the nearest folder (from `cwd` up) holding one of SEARCH_PLACES.
 * Runs no code; throws a SettingsError for a data file that does not parse.
 *
 * @example
 * const found = await findProjectSettings('/repo/packages/x', { homeDir: os.homedir(), userConfigDir });
 * // { file: '/repo/.airlockrc.json', dir: '/repo', kind: 'data', values: { … } }
 */
export async function findProjectSettings(cwd: string, boundaries: SearchBoundaries): Promise<ProjectSettingsFile | undefined> {
  // A stand-in for a code file: it marks the file as found without running it.
  const deferred = {};
  let sawCode = false;
  const defer: Loader = async () => {
    sawCode = true;
    return deferred;
  };
  const explorer = createExplorer(SEARCH_PLACES, defer, 'project');

  for (const dir of projectSearchDirs(cwd, boundaries)) {
    await refuseSettingsInPackageJson(dir);
    // Our own search, one name after another, never cosmiconfig's: its search first reads a
    // "meta config" (package.json#cosmiconfig, .config/config.*) from the process's folder, which
    // could add search places, and so let a project file an agent may write decide where settings come from.
    const file = SEARCH_PLACES.map((name) => join(dir, name)).find(isFile);
    if (file === undefined) continue;
    sawCode = false;
    let found: CosmiconfigResult;
    try {
      found = await explorer.load(file);
    } catch (error) {
      throw await toSettingsError(error, { layer: 'project', file });
    }
    // An empty file never reaches a loader, but it still stops the walk up: it is settings too.
    if (found === null || found.isEmpty) {
      await refuseUnsafe({ layer: 'project', file });
      return { file, dir, kind: 'data', values: {} };
    }
    if (sawCode) return { file, dir, kind: 'code' };
    return { file, dir, kind: 'data', values: found.config };
  }
  return undefined;
}

/** A regular file (or a link to one) is there; a folder of that name is not settings. */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * A package.json whose `airlock` field is settings (not an extension's manifest) is refused:
 * settings are read only from Airlock's own files, which no tool may write.
 */
async function refuseSettingsInPackageJson(dir: string): Promise<void> {
  const file = join(dir, 'package.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return; // none, or unreadable: not settings either way
  }
  let field: unknown;
  try {
    field = (JSON.parse(text) as Record<string, unknown> | null)?.[MODULE_NAME];
  } catch {
    return; // not JSON: npm's problem, not settings
  }
  if (field !== undefined && !isExtensionManifest(field)) throw settingsInPackageJson(file);
}

/**
 * Read one settings file, running it if it is code: an explicit `--settings` file, the user
 * file, or a project code file found by findProjectSettings. Throws a SettingsError naming the
 * file: not found, unreadable, syntax (with the line), or a module that threw.
 *
 * @example const { values } = await readSettingsFile('/repo/airlock.config.ts', 'project');
 */
export async function readSettingsFile(file: string, layer: SettingsLayerName): Promise<RawSettings> {
  const source = { layer, file };
  const extension = extname(file);
  if (!CODE_EXTENSIONS.includes(extension) && !DATA_EXTENSIONS.includes(extension)) {
    throw unreadableSettings(source, new Error(`"${extension}" files are not settings files; use .json, .yaml, .yml, .ts, .mts, .js or .mjs`));
  }
  await refuseUnsafe(source);
  let result: CosmiconfigResult;
  try {
    // Local rules are written by a prompt and hold rules only: a `$import` there must not run code.
    result = await createExplorer(SEARCH_PLACES, layer === 'local' ? refuseCode : importSettingsModule, layer).load(file);
  } catch (error) {
    throw await toSettingsError(error, source);
  }
  const field = basename(file) === 'package.json' ? MODULE_NAME : undefined;
  if (!result) throw settingsFileNotFound(source, `this package.json has no "${MODULE_NAME}" field`);
  return { values: result.isEmpty ? {} : result.config, ...(field ? { field } : {}) };
}

/** Throws when someone else could have written the settings file (file-safety.ts). */
async function refuseUnsafe(source: SettingsSource & { file: string }): Promise<void> {
  const unsafe = await settingsFileSafety(source.file);
  if (unsafe) throw unsafeSettingsFile(source, unsafe);
}

/** True when something (a file, a folder, a link) exists at `path`: reading it then explains what is wrong with it. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

// ─── cosmiconfig and jiti ───────────────────────────────────────────────────────────────────

function createExplorer(searchPlaces: readonly string[], codeLoader: Loader, layer: SettingsLayerName) {
  const loaders: Record<string, Loader> = { ...defaultLoaders, ...Object.fromEntries(CODE_EXTENSIONS.map((ext) => [ext, codeLoader])) };
  return cosmiconfig(MODULE_NAME, {
    searchPlaces: [...searchPlaces],
    searchStrategy: 'none',
    ignoreEmptySearchPlaces: false,
    cache: false, // settings may be reloaded in one process; always read the file again
    // Every file cosmiconfig reads goes through a loader — the settings file and each file it
    // `$import`s — so each one is checked for who could have written it before it counts.
    loaders: Object.fromEntries(Object.entries(loaders).map(([ext, loader]) => [ext, guarded(loader, layer)])),
  });
}

/**
 * `loader`, refusing a file others could have written (file-safety.ts). Code is checked before it
 * runs. A package.json only counts when it holds settings (an `airlock` field that is not an
 * extension's manifest): any other package.json on the way is not settings, whatever its mode.
 */
function guarded(loader: Loader, layer: SettingsLayerName): Loader {
  return async (file, content) => {
    if (CODE_EXTENSIONS.includes(extname(file))) {
      await refuseUnsafe({ layer, file });
      return loader(file, content);
    }
    const loaded: unknown = await loader(file, content);
    if (basename(file) === 'package.json') {
      const field = (loaded as Record<string, unknown> | null | undefined)?.[MODULE_NAME];
      if (field === undefined || isExtensionManifest(field)) return loaded;
    }
    await refuseUnsafe({ layer, file, ...(basename(file) === 'package.json' ? { field: MODULE_NAME } : {}) });
    return loaded;
  };
}

async function searchFolder(explorer: ReturnType<typeof createExplorer>, dir: string): Promise<CosmiconfigResult> {
  try {
    return await explorer.search(dir);
  } catch (error) {
    const file = (error as { filepath?: unknown }).filepath;
    throw await toSettingsError(error, { layer: 'project', file: typeof file === 'string' ? file : dir });
  }
}

let jiti: Jiti | undefined;

/**
 * Run a TS/JS settings module and return its default export. Not `{ default: true }`: that
 * returns the whole module when there is no default export, which would then fail validation
 * with confusing "unknown setting" errors for each named export.
 */
const importSettingsModule: Loader = async (file) => {
  // jiti (with babel) loads on the first code config, not at start-up: most runs read JSON.
  jiti ??= (await import('jiti')).createJiti(import.meta.url, { moduleCache: false });
  const mod = ESM_JAVASCRIPT.includes(extname(file)) ? await importJavaScript(jiti, file) : await jiti.import<unknown>(file);
  if (typeof mod === 'object' && mod !== null && 'default' in mod) return (mod as { default: unknown }).default;
  throw new MissingDefaultExport(file);
};

const ESM_JAVASCRIPT = ['.js', '.mjs'];

/**
 * jiti's async `import` hands ES-module JavaScript (`.mjs`, `.js` under `"type": "module"`) to
 * Node's native import, whose cache never lets go: a second load would miss edits. Its
 * synchronous require transpiles instead, and honours `moduleCache: false`. That path cannot do
 * top-level await; a module that uses it loads natively (edits then need a new process).
 */
async function importJavaScript(loader: Jiti, file: string): Promise<unknown> {
  try {
    return loader(file);
  } catch (error) {
    // By name, not instanceof: the error may come from another realm's SyntaxError.
    if ((error as Error | undefined)?.name === 'SyntaxError' && /\bawait\b/.test((error as Error).message)) return loader.import<unknown>(file);
    throw error;
  }
}

/** The loader for files that must stay data: any code file they reach is an error, never run. */
const refuseCode: Loader = (file) => {
  throw new Error(`${file} is code; this settings file may only hold data (JSON or YAML), so it was not run`);
};

class MissingDefaultExport extends Error {
  constructor(file: string) {
    super(`${file} has no default export`);
  }
}

/** The manifest of an extension package (`"airlock": { "extension": "./src/index.ts", "kernel": "^1" }`). */
function isExtensionManifest(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return typeof (value as { extension?: unknown }).extension === 'string' || 'kernel' in value || 'provides' in value;
}

// ─── errors ─────────────────────────────────────────────────────────────────────────────────

/** Any failure while reading a settings file, as a SettingsError naming the file (and line, for syntax). */
async function toSettingsError(error: unknown, source: SettingsSource & { file: string }): Promise<SettingsError> {
  if (error instanceof SettingsError) return error;
  const e = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown; reason?: unknown; mark?: { line: number; column: number } };
  const message = typeof e.message === 'string' ? e.message : String(error);

  if (e.code === 'ENOENT') return settingsFileNotFound(source, 'no such file', error);
  if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EISDIR' || e.code === 'ENOTDIR') return unreadableSettings(source, error);
  if (error instanceof MissingDefaultExport) {
    return invalidSettings(source, [{ path: '', message: 'the module has no default export; expected `export default { … }`' }]);
  }
  if (e.name === 'YAMLException') {
    const at = e.mark ? { line: e.mark.line + 1, column: e.mark.column + 1 } : {};
    return settingsSyntaxError(source, typeof e.reason === 'string' ? e.reason : firstLineOf(error), at, error);
  }
  if (e.name === 'JSONError' || message.startsWith('JSON Error in')) return jsonSyntaxError(message, source, error);
  const parse = /^(?:ParseError|SyntaxError): (.*)$/m.exec(message);
  if (parse || e.name === 'SyntaxError') return codeSyntaxError(parse?.[1] ?? firstLineOf(error), message, source, error);
  if (CODE_EXTENSIONS.includes(extname(source.file))) return settingsLoadFailed(source, error);
  return unreadableSettings(source, error);
}

/** parse-json reports a character offset ("at position 42"); people want a line. */
async function jsonSyntaxError(colored: string, source: SettingsSource & { file: string }, cause: unknown): Promise<SettingsError> {
  // parse-json colours its code frame when it thinks the terminal can (CI=true is enough), and
  // the escapes would hide the position and end up in the message.
  const message = colored.replace(/\u001b\[[0-9;]*m/g, '');
  // The reason is the one line that is neither cosmiconfig's header nor part of a code frame.
  const line = message.split('\n').find((l) => /^[^\s>|]/.test(l) && !l.startsWith('JSON Error in')) ?? 'invalid JSON';
  // The position moves into line/column; drop it (and parse-json's excerpt) from the reason.
  const reason = line.replace(/ while parsing .*$/, '').replace(/ in JSON at position \d+.*$/, '').trim();
  const content = await readFile(source.file, 'utf8').catch(() => undefined);
  const offset = /at position (\d+)/.exec(line)?.[1];
  const position = offset !== undefined ? Number(offset) : /Unexpected end/.test(line) ? content?.length : undefined;
  return settingsSyntaxError(source, reason, content !== undefined && position !== undefined ? lineAndColumn(content, position) : {}, cause);
}

/** jiti (babel) reports `ParseError: Unexpected token \n /path/file.ts:2:22`; the file may be an import of the config. */
function codeSyntaxError(reason: string, message: string, source: SettingsSource & { file: string }, cause: unknown): SettingsError {
  const location = /^\s*(.+):(\d+):(\d+)\s*$/m.exec(message);
  const clean = reason.trim() || 'syntax error';
  if (!location) return settingsSyntaxError(source, clean, {}, cause);
  const [, file, line, column] = location;
  if (resolve(file!) !== resolve(source.file)) return settingsSyntaxError(source, `${clean} (in ${file}:${line}:${column})`, {}, cause);
  // babel's columns are 0-based.
  return settingsSyntaxError(source, clean, { line: Number(line), column: Number(column) + 1 }, cause);
}

function lineAndColumn(content: string, position: number): { line: number; column: number } {
  const before = content.slice(0, position).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

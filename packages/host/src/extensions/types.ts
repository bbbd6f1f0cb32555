import type { EventSink, ExtensionManifest } from '@airlock/contract';

/**
 * Shapes shared by the extension loader's modules. `ExtensionToLoad` is what the loader needs
 * from settings; the settings code's own `ExtensionEntry` (src/settings/merge.ts, every field
 * filled in) is assignable to it (a test keeps it so), and the default set is built in this shape
 * too. Two names for two shapes: the loader's is looser, since defaults and SDK callers leave
 * fields out.
 */

import type { SettingsLayerName } from '../settings/errors.js';
import type { PackagePolicy } from '../settings/package-policy.js';

export type { SettingsLayerName };

/**
 * Lowest to highest precedence: a later layer overrides an earlier one. `local` holds rules only,
 * never extensions. `code` is what a program passes to `openHost` (settings and extension modules
 * in code); the CLI's flags stay on top of it.
 */
export const LAYER_ORDER: readonly SettingsLayerName[] = ['defaults', 'user', 'project', 'local', 'code', 'cli'];

/** One extension to load, as a settings layer, the defaults or an SDK caller name it. */
export interface ExtensionToLoad {
  /** A package name (`@acme/guard`) or a path (`./tools/my-ext`, `/abs/ext`, `~/ext`). */
  spec: string;
  /** What `spec` is, when settings already decided (`{ path: "tools/x" }` is a path without `./`). */
  kind?: 'package' | 'path';
  /** For a path: `spec` already resolved to an absolute path. */
  path?: string;
  /** Handed to the extension after validation against its own options schema. */
  options?: unknown;
  /** false: listed, but not to be loaded. */
  enabled?: boolean;
  /** true: a failure to find or load it is reported and does not block the tools (default: it blocks). */
  optional?: boolean;
  layer: SettingsLayerName;
  /** The settings file that named it (absent for built-in defaults and plain CLI flags). */
  file?: string;
  /** The folder a relative path resolves against: the folder of `file`. */
  baseDir: string;
  /**
   * The earlier layer's entry for the same extension that this one replaced. When this entry's
   * layer may not be used (an untrusted project), that one loads instead: an untrusted project
   * can neither turn off nor reconfigure an extension the user listed.
   */
  replaces?: ExtensionToLoad;
  /** An extension module handed over in code (see {@link InlineExtension}): nothing is looked up on disk. */
  module?: InlineExtension;
}

/**
 * An extension module a program hands to the host in code instead of naming a package: the object
 * `defineExtension` returned (or a module namespace whose default export it is), with what a
 * package would say in its `package.json#airlock`. It goes through the same steps as a package:
 * the manifest's checks, the kernel range, the export's shape, options against its schema,
 * `setup` rolled back on failure, and fail-closed (a module that fails blocks every tool unless
 * `optional`; one that declares or registers authorize, approve or redact handlers always does).
 *
 * @example
 * openHost({ cwd, interactive: false, modules: [{ extension: noSecrets, provides: { hooks: ['tool_call:authorize'] } }] });
 */
export interface InlineExtension {
  /** The extension object (`defineExtension({...})`), or a module namespace with it as `default`. */
  extension: unknown;
  /** The kernel versions it works with (semver). Default: any (it was compiled against the kernel it runs on). */
  kernel?: string;
  /** What it registers, as a manifest declares it; declaring policy hooks makes its failure block every tool even before it registered them. */
  provides?: { tools?: string[]; hooks?: string[] };
  /** Handed to its `setup` after validation against its own options schema. */
  options?: unknown;
  /** true: a failure is reported and does not block the tools. */
  optional?: boolean;
  /** The name tools' origin and messages use (default: the extension's own `name`). */
  name?: string;
  /** Labels the tools' origin (default `0.0.0`). */
  version?: string;
}

/** Where bare extension names are looked up (see resolve.ts). */
export interface ExtensionDirs {
  /**
   * The user's extension folder: bare names resolve from `<userExtensions>/node_modules`
   * (install with `npm i --prefix <userExtensions> <pkg>`). Default: `$XDG_CONFIG_HOME/airlock/extensions`.
   */
  userExtensions: string;
  /** Folders whose node_modules chain (the folder, then each parent) holds Airlock's own packages. */
  builtinRoots: readonly string[];
  /** Folders that directly hold Airlock's extension packages by folder (the workspace's `extensions/`). */
  builtinPackageDirs: readonly string[];
}

/** How a bare name or path was found. */
export type FoundIn = 'path' | 'project' | 'user' | 'builtin' | 'code';

/** An extension package located on disk, its manifest read and checked. */
export interface ResolvedExtension {
  entry: ExtensionToLoad;
  foundIn: FoundIn;
  /** The package folder as found (may be a symlink, as in every pnpm node_modules). */
  packageDir: string;
  /** The same folder with symlinks resolved: where the code really is. */
  realDir: string;
  /** package.json name and version. */
  packageName: string;
  version: string;
  manifest: ExtensionManifest;
  /** Absolute path of the module jiti loads (for a module passed in code: how it is named). */
  entryFile: string;
  /** The commands its manifest declares, each module found inside the package. */
  commands: ExtensionCommandEntry[];
  /** A module passed in code: it is used as it is, never imported. */
  module?: unknown;
  /** The rules and settings its manifest carries (`airlock.rules`, `airlock.settings`), checked. */
  carries?: PackagePolicy;
}

export type ExtensionStatus = 'loaded' | 'failed' | 'skipped' | 'disabled' | 'not-installed';

/** One handler an extension registered, for `airlock extensions`. */
export interface RegisteredHandler {
  hook: 'tool_call' | 'tool_result';
  phase: string;
  /** Always `<extension>/<purpose>` (see api.ts). */
  name: string;
}

/** What `airlock extensions` shows for each entry, whether or not it loaded. */
export interface ExtensionRecord {
  /** The extension's own name once its module is read; until then the package name or the spec. */
  name: string;
  /** As settings wrote it. */
  spec: string;
  status: ExtensionStatus;
  layer: SettingsLayerName;
  /** The settings file that named it. */
  settingsFile?: string;
  /** `package` for a bare name, `path` for a path; with the folder it was found in. */
  source?: { kind: 'package' | 'path'; foundIn: FoundIn; dir: string; realDir: string };
  packageName?: string;
  version?: string;
  description?: string;
  /** package.json#airlock.kernel */
  kernelRange?: string;
  /** Does the running kernel satisfy `kernelRange`? Undefined when it was never checked. */
  compatible?: boolean;
  /** The manifest's `provides`, as declared. */
  provides?: { tools: string[]; hooks: string[] };
  /** What it actually registered (empty unless loaded: a failed setup is rolled back). */
  tools: string[];
  hooks: RegisteredHandler[];
  /** Registers (or declares) authorize, approve or redact handlers: its failure blocks every tool. */
  policy: boolean;
  /** Time spent importing and setting up, in ms. */
  loadMs?: number;
}

/** A loaded extension: a record whose status is `loaded`, with its package facts filled in. */
export type LoadedExtension = ExtensionRecord & {
  status: 'loaded';
  packageName: string;
  version: string;
  kernelRange: string;
  compatible: true;
  source: NonNullable<ExtensionRecord['source']>;
};

/**
 * One `airlock <name>` command a package's manifest declares (`airlock.commands`), found on disk:
 * what `airlock --help` lists, and where the CLI imports it from when the word runs.
 */
export interface ExtensionCommandEntry {
  name: string;
  summary: string;
  /** As the manifest writes it (`./src/command.ts`). */
  module: string;
  /** The module's absolute real path. */
  file: string;
  /** The package that declares it, and how the host found that package. */
  packageName: string;
  version: string;
  foundIn: FoundIn;
  /** The package's real folder: its extension's record has it as `source.realDir`. */
  realDir: string;
}

/** An event listener an extension added with `api.onEvent`. */
export interface ExtensionListener {
  extension: string;
  listener: EventSink;
}

/**
 * Airlock's own extension packages compiled into the caller (the CLI's single-file bundle), by
 * package name. When resolution finds that package among Airlock's own (`foundIn: "builtin"`) at
 * the same version, its module comes from here instead of jiti: no babel, no transpiling at start.
 * Everything else is unchanged: the manifest, the compatibility check, options and `setup(api)`.
 * A project's own copy of the package, or another version, still loads through jiti.
 *
 * @example
 * { '@airlock/tool-read': { version: '1.0.0', load: () => import('@airlock/tool-read') } }
 */
export type BundledExtensions = Readonly<
  Record<
    string,
    {
      version: string;
      load: () => Promise<unknown>;
      /** Its command modules, by the path its manifest names (`./src/command.ts`). */
      commands?: Readonly<Record<string, () => Promise<unknown>>>;
    }
  >
>;

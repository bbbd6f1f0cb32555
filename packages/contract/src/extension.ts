import type { Static, TObject, TSchema } from 'typebox';
import type { ToolUI } from './ask.js';
import type { AccessCheck, Logger, SandboxProfileProvider, SandboxService, SandboxStatus } from './context.js';
import type { EventSink, HookRegistrar } from './hooks.js';
import type { AgentActivityListener } from './agent-activity.js';
import type { AnyAgentTool } from './tool.js';
// Types only: a command's run gets the host's kernel (preflight, registry) as its input.
import type { PreflightReport } from './preflight.js';
import type { ToolCall } from './outcome.js';

/**
 * What an extension gets from the host in `setup(api, options)`: ways to add tools and handlers,
 * and the services it may use. It can tap the bus but never fire it, and it holds nothing that
 * belongs to another extension. `S` is the settings it declared it reads (`Extension.settings`).
 */
export interface ExtensionAPI<S extends object = {}> extends HookRegistrar {
  /** Add a tool (source "extension"). A name already taken is a load error unless `override: true`. */
  registerTool(tool: AnyAgentTool): void;
  /**
   * Observe kernel events (tool_execution_start/update/end, decisions, hook failures) of every
   * call the kernel runs, from any entry point (it is `kernel.onEvent`). Called synchronously and
   * never awaited; a throw or rejection is logged with the extension's name, and the call goes on.
   *
   * @example
   * api.onEvent((e) => { if (e.type === 'hook_failure') api.log.warn(`${e.handler} failed: ${e.error}`); });
   */
  onEvent(listener: EventSink): void;
  /**
   * Observe what agent loops driving this host report (`airlock run`, `agent/prompt` over RPC, an
   * SDK agent): runs, turns and model requests with models, stop reasons and token usage, never
   * message content. Tool calls a model request asked for are named by the same ids the kernel's
   * events carry. Called synchronously, never awaited; a throw is logged with the extension's name.
   * Undefined on hosts older than this API.
   *
   * @example
   * api.onAgentActivity?.((a) => { if (a.type === 'model_request_end') api.log.info(`${a.model}: ${a.usage?.output ?? 0} tokens out`); });
   */
  onAgentActivity?(listener: AgentActivityListener): void;
  /**
   * The extensions this host loaded, with their packages and versions (for telemetry and audit
   * records). The list is complete once every extension's setup has finished: read it when a call
   * arrives, not during setup.
   *
   * @example
   * const versions = api.loadedExtensions?.().map((e) => `${e.name}@${e.version}`);
   */
  loadedExtensions?(): readonly LoadedExtensionInfo[];
  /**
   * Add a per-file check that tools consult through `ctx.access` (grep judging every file of a
   * tree it searches). Synchronous and cheap: it runs once per file. Several checks combine
   * deny > ask > allow; a throw is a deny.
   *
   * @example
   * api.registerAccessCheck(({ kind, path }) => (kind === 'fs.read' && path.endsWith('.env') ? { effect: 'deny', reason: 'secrets' } : undefined));
   */
  registerAccessCheck(check: AccessCheck, options?: { name?: string }): void;
  /**
   * Give the OS sandbox the rules processes run under (path-policy derives them from its compiled
   * rules, so there is one source of truth). Several providers combine: every hidden and
   * read-only place counts, and only folders every provider lets write stay writable.
   *
   * @example
   * api.registerSandboxProfile(({ cwd }) => ({ writable: [cwd], readOnly: [], hidden: [], classify: () => undefined }));
   */
  registerSandboxProfile?(provider: SandboxProfileProvider): void;
  /**
   * Add a text redactor: a pure function from text to the same text with secrets replaced. The
   * host applies every registered redactor to what it writes down outside the tool pipeline
   * (session transcripts: user, assistant and tool-call text, tool results), where the tool_result
   * hook's redact phase does not reach. Synchronous; a throw (or an answer that is not a string)
   * withholds the text instead of writing it in clear. Registering one makes the extension a
   * policy extension: if its setup fails, nothing runs.
   *
   * @example
   * api.registerRedactor?.((text) => text.replace(/ghp_[A-Za-z0-9]{36}/g, '[REDACTED]'), { name: 'tokens' });
   */
  registerRedactor?(redactor: TextRedactor, options?: { name?: string }): void;
  /**
   * @deprecated Commands are declared in the package's manifest (`airlock.commands`, see
   * ExtensionManifest), so `airlock --help` lists them without running any setup. A call here adds
   * nothing; the host reports it (`AIRLOCK_EXTENSION_COMMAND_UNDECLARED`) and setup goes on.
   */
  registerCommand?(command: unknown): void;
  /** Asking the person: a terminal, an RPC or MCP client, the SDK program's UI, or nobody (`ui.interactive` false). */
  readonly ui: ToolUI;
  /** Messages go to the host's log, prefixed with the extension's name. */
  readonly log: Logger;
  /**
   * The settings this extension declared it reads (`Extension.settings`), checked against that
   * schema when it loaded, and frozen; `{}` when it declares none.
   */
  readonly settings: Frozen<S>;
  /** The running kernel's version, e.g. "1.0.0". */
  readonly kernelVersion: string;
  /** The folder the host runs in (the project). */
  readonly cwd: string;
  /** The kernel's session: the same id tools see as `ctx.sessionId` (audit records, spill folders). */
  readonly sessionId: string;
  /**
   * The file the session's transcript is being written to, once the program driving this host
   * opened one (`airlock run`, an SDK agent recording its session); undefined for calls that belong
   * to no transcript (`airlock call`, an MCP or RPC client's call). Read it when a call arrives:
   * the transcript is opened after the host. Undefined on hosts older than this API.
   *
   * @example
   * const path = api.transcriptPath?.(); // '/home/me/.local/state/airlock/sessions/…/2026-….jsonl'
   */
  transcriptPath?(): string | undefined;
  /** The environment the host runs with (what tools see as `ctx.env`), e.g. to find secret values to redact. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where a person's "always" answers are saved; undefined when the host keeps no settings files. */
  readonly rules?: RuleStore;
  /** Airlock's own files, which no tool may write (see ProtectedPaths); undefined when the host keeps none. */
  readonly protectedPaths?: ProtectedPaths;
  /** Whether commands run inside the OS sandbox (a policy asks more when not); undefined when the host offers none. */
  readonly sandbox?: SandboxStatus;
  /**
   * The OS sandbox for a process the extension starts itself, outside any one call (an MCP
   * server started at setup, a command hook): `wrap` its command line as a tool wraps its process, spawn
   * what comes back, and call `release()` when it ends. It runs under the profile the policy
   * gives every process (writes only in the workspace, secrets hidden, network only to hosts an
   * allow rule names); no call's approval widens it. Undefined when the host offers no sandbox.
   *
   * @example
   * const cmd = await api.processSandbox!.wrap(['node', 'server.js'], { cwd: api.cwd, env });
   * const child = spawn(cmd.file, [...cmd.args], { env: cmd.env });
   * child.on('exit', () => void cmd.release());
   */
  readonly processSandbox?: SandboxService;
  /**
   * A named set of tools this extension may change after setup, when the source of the tools
   * says they changed (an MCP server's `tools/list_changed`). Create it during setup; its
   * `replace` works afterwards too, each change is logged with the extension's name, and its
   * tools go through the same checks as `registerTool` (a refused one is reported, the others
   * stay). A failed setup removes the set's tools like any other registration. Calls already
   * under way keep the definition they started with; every call is judged by the policy as usual.
   *
   * @example
   * const set = api.toolSet?.('github');
   * set?.replace([toolA, toolB]); // later: set.replace([toolA, toolC]) removes toolB, adds toolC
   */
  toolSet?(name: string): ToolSet;
}

/** One loaded extension as `api.loadedExtensions()` lists it. */
export interface LoadedExtensionInfo {
  /** The extension's name: the prefix of its handler names (`path-policy/deny-rules`). */
  readonly name: string;
  readonly packageName: string;
  readonly version: string;
}

/** A set of tools an extension may replace after setup (see ExtensionAPI.toolSet). */
export interface ToolSet {
  readonly name: string;
  /** The names registered now, in order. */
  readonly names: readonly string[];
  /** Make the set exactly `tools` (by name: new ones added, missing ones removed, the rest replaced). */
  replace(tools: readonly AnyAgentTool[]): ToolSetChange;
}

/** What one ToolSet.replace did. */
export interface ToolSetChange {
  added: string[];
  removed: string[];
  /** Names kept whose definition was replaced. */
  replaced: string[];
  /** Tools the registry refused (a bad definition, a name another extension holds), with why. */
  refused: { name: string; error: string }[];
}

/** Text in, the same text with secrets replaced out (see ExtensionAPI.registerRedactor). */
export type TextRedactor = (text: string) => string;

/**
 * What a command module default-exports: the rest of a command the manifest declares
 * (`airlock.commands: [{ name, summary, module }]`). The manifest gives the word and its one-line
 * summary, so `airlock --help` lists it without importing this module; the module is imported
 * when the word runs or its own help is asked for (`airlock <name> --help`), and never runs the
 * extension's setup by being imported. Either `run` or `subcommands`, or both.
 *
 * `O` is the extension's options as its setup gets them and `S` what its setup returns: both reach
 * `run` as `input.extension`.
 *
 * @example
 * // src/hello-command.ts, declared as { "name": "hello", "summary": "greet someone", "module": "./src/hello-command.ts" }
 * export default defineCommand({
 *   arguments: [{ name: 'who', description: 'whom to greet', required: true }],
 *   options: Type.Object({ shout: Type.Optional(Type.Boolean({ description: 'in capitals' })) }),
 *   run: ({ args, options, stdout }) => { stdout.write(`hello ${options.shout ? args[0]!.toUpperCase() : args[0]}\n`); return 0; },
 * });
 */
export interface CommandDefinition<O = unknown, S = unknown> extends CommandParts<O, S> {
  /**
   * Default true: the command uses what its extension's setup built, so when the extension did not
   * load (its setup threw, its options are invalid, its kernel range does not fit) the CLI says so
   * and why, exits 2 and does not call `run`. False for a command that works without it (a check
   * of the extension's own settings): it runs anyway, with `input.extension.loaded` false.
   */
  needsSetup?: boolean;
}

/** A subcommand (`airlock audit verify`): named here, since only the top word is in the manifest. */
export interface ExtensionCommand<O = unknown, S = unknown> extends CommandParts<O, S> {
  /** Lowercase letters, digits and `-`, starting with a letter: `verify`, `my-report`. */
  name: string;
  /** One line for `airlock <command> --help`. */
  summary: string;
}

/** What a command and each of its subcommands may have. */
export interface CommandParts<O = unknown, S = unknown> {
  /** Positional arguments, in order; only the last may be `variadic`. */
  arguments?: readonly CommandArgument[];
  /**
   * The options, as a TypeBox object: each property `fooBar` is the flag `--foo-bar`; a boolean
   * is a switch (`--no-foo-bar` when its default is true); a number or integer is converted and
   * checked; `description` is the help text and `short: 'n'` adds `-n`. What `run` gets in
   * `options` is the checked value, defaults filled in.
   */
  options?: TSchema;
  subcommands?: readonly ExtensionCommand<O, S>[];
  /** Returns the exit code: 0 done, 1 the outcome is bad (a broken chain, a denied call), 2 a usage problem. */
  run?(input: CommandInput<O, S>): number | Promise<number>;
}

/** Identity helper for a command module's default export; `O` and `S` type `input.extension`. */
export function defineCommand<O = unknown, S = unknown>(command: CommandDefinition<O, S>): CommandDefinition<O, S> {
  return command;
}

/** A positional argument of an ExtensionCommand. */
export interface CommandArgument {
  name: string;
  description: string;
  /** Default false: the argument may be left out. */
  required?: boolean;
  /** Takes every remaining word (only for the last argument). */
  variadic?: boolean;
}

/** What a command's `run` gets: the parsed words and the services of the host the CLI opened. */
export interface CommandInput<O = unknown, S = unknown> {
  /** The positional arguments as given (a variadic one is spread); left-out ones are absent. */
  readonly args: readonly string[];
  /** The checked options (see CommandParts.options). */
  readonly options: Readonly<Record<string, unknown>>;
  /** Standard output (raw bytes when it is a file or pipe) and standard error (made terminal-safe). */
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The folder the command runs for (`--cwd`, resolved). */
  readonly cwd: string;
  /** `--json` was given: print machine-readable output. */
  readonly json: boolean;
  /** The global options as given (`settings`, `tools`, `trust`, …). */
  readonly globals: Readonly<Record<string, unknown>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What a command sees of the kernel the host loaded: where it runs and the tools registered (a `Kernel` fits). */
  readonly kernel: CommandKernelView;
  /** The merged settings, read-only. */
  readonly settings: Readonly<Record<string, unknown>>;
  /**
   * The options the settings files write for the extension that brings this command (its last
   * enabled entry, any layer, an untrusted project's too), as written: not checked, nothing run.
   * For finding files (where a log is); what `setup` got is `extension.options`.
   */
  readonly settingsOptions: unknown;
  /** The extension whose manifest declares this command, as the host loaded it. */
  readonly extension: CommandExtension<O, S>;
  /** Aborts on Ctrl-C. */
  readonly signal: AbortSignal;
  /** Reads all of standard input (for a `-` argument). */
  readStdin(): Promise<string>;
  /**
   * A JSON value given as an argument, or read from standard input when it is `-` (`{}` when
   * absent or blank), as `airlock call` reads its arguments; bad JSON throws the CLI's usage
   * error naming `what` and where the text came from.
   *
   * @example const args = await input.readJson(input.args[1], 'arguments');
   */
  readJson(text: string | undefined, what: string): Promise<unknown>;
  /** `kernel.preflight` over the tool set a real call of this run would see (`--tools`, settings). */
  preflight(call: ToolCall): Promise<PreflightReport>;
  /** Print the host's load problems on stderr, as `airlock call` does before running (`--verbose` adds stacks). */
  reportLoad(): void;
  /** What the host loaded and from where. */
  readonly host: CommandHostFacts;
}

/** The extension behind a command (see CommandInput.extension). */
export type CommandExtension<O = unknown, S = unknown> =
  | {
      /** Its own name (`defineExtension({ name })`). */
      readonly name: string;
      readonly packageName: string;
      /** Its setup finished: `options` and `fromSetup` are what it got and gave. */
      readonly loaded: true;
      /** The options its setup got: checked against its schema, defaults filled in. */
      readonly options: O;
      /** What its setup returned (resolved): how a command reaches what setup built. */
      readonly fromSetup: S;
    }
  | {
      /** Its own name once its module was read, else its package name. */
      readonly name: string;
      readonly packageName: string;
      /** It did not load (only a command with `needsSetup: false` runs then); `reportLoad()` prints why. */
      readonly loaded: false;
    };

/** The part of the kernel a command reads (see CommandInput.kernel); the contract names no class. */
export interface CommandKernelView {
  readonly cwd: string;
  readonly registry: { get(name: string): { readonly tool: AnyAgentTool } | undefined };
}

/** Facts about the host a command runs in (see CommandInput.host). */
export interface CommandHostFacts {
  /** Every permission rule with the settings layer and file it came from, lowest precedence first. */
  readonly permissions: readonly {
    readonly effect: 'allow' | 'ask' | 'deny';
    readonly rule: unknown;
    readonly layer: string;
    readonly file?: string;
    /** The package whose manifest carried the rule (`airlock.rules`); `layer` and `file` then named the package. */
    readonly package?: { readonly name: string; readonly version: string; readonly dir?: string };
  }[];
  /** Each extension the settings name (or the default set), with its load status. */
  readonly extensions: readonly { readonly name: string; readonly spec: string; readonly status: string }[];
  /** Airlock's own files, which no tool may write. */
  readonly protectedPaths: ProtectedPaths;
  /** Commands run inside the OS sandbox. */
  readonly sandboxActive: boolean;
  /** The sandbox profile a command in `cwd` would run under, in words, with `hosts` opened; throws when it cannot be built. */
  describeSandbox(cwd: string, hosts: readonly string[]): string;
}

/**
 * The files that decide what Airlock allows, as the host knows them: its settings, trust and
 * state. Policy extensions deny every tool's writes to them (and an OS sandbox can use the same
 * list). All paths are absolute, as the host resolved them.
 *
 * @example
 * api.protectedPaths?.locations; // [{ path: '/home/u/.config/airlock', kind: 'folder', what: 'your Airlock config folder (settings, trust)' }, …]
 * api.protectedPaths?.settingsNames; // ['.airlockrc*', 'airlock.config.*', '.airlock/**', …]
 */
export interface ProtectedPaths {
  /** Fixed places: folders (with everything in them), single files, or every file whose path starts with a prefix (a log and its rotations). */
  readonly locations: readonly ProtectedLocation[];
  /**
   * Names, as globs relative to a folder: settings files (`.airlockrc*`, `.airlock/**`) and the
   * packages of the extensions settings load (`node_modules/@airlock/path-policy/**`, which a
   * package there would shadow). Protected in each of settingsFolders and in any folder below settingsTrees.
   */
  readonly settingsNames: readonly string[];
  /** Folders settings discovery reads (the project folder and every folder above it that is searched). */
  readonly settingsFolders: readonly string[];
  /** Folders in any sub-folder of which a run may start, and so read settings: the project. */
  readonly settingsTrees: readonly string[];
  /**
   * This user's spill folder (also one of `locations`). Tool results name files in its session
   * folders (`<spillRoot>/<session>/<file>`, a folder holding the SpillMarkerName file), so a
   * policy lets tools read those without asking; writing there stays denied, and a link inside is
   * judged by its real target.
   */
  readonly spillRoot?: string;
}

/**
 * The file that marks a folder under the spill root as a session folder the kernel made. A type,
 * so an extension that checks for it (path-policy) spells it as the kernel writes it.
 */
export type SpillMarkerName = '.airlock-spill-session';

/**
 * The rule name a policy's vote carries when it protects these files (path-policy's deny, or its
 * ask for a `find -delete` that may reach them). No allow rule lifts it, so an approver never
 * offers to remember an answer for it. A type, so every extension spells it the same way.
 */
export type ProtectedRuleName = 'default:airlock-protected';

/** One fixed protected place. `what` says in words what it is, for messages. */
export interface ProtectedLocation {
  readonly path: string;
  readonly kind: 'folder' | 'file' | 'prefix';
  readonly what: string;
}

/**
 * Saving permission rules a person chose (an approval prompt's "always allow"). The host owns
 * the files and their format; the rule is in the settings' surface form, e.g. `bash(npm test)`.
 *
 * @example
 * const { file } = await api.rules!.add('allow', 'bash(npm test)', 'local');
 */
export interface RuleStore {
  /** The project's local rules (`.airlock/settings.local.json`, not shared) and the user's settings file. */
  readonly files: { readonly local: string; readonly user: string };
  /** False while the project folder is not trusted: its local allow rules are ignored until it is (`airlock trust`). */
  readonly localCounts: boolean;
  /** Add a rule to `permissions[effect]` of that file (once). Rejects with a message naming the file when it cannot. */
  add(effect: 'allow' | 'ask' | 'deny', rule: string, where: 'local' | 'user'): Promise<{ file: string; added: boolean }>;
}

/**
 * An extension: a name, TypeBox schemas for its options and for the settings it reads, and
 * `setup`. The package's `package.json` carries the manifest:
 * `"airlock": {"extension": "./src/index.ts", "kernel": "^1.0.0"}`.
 *
 * @example
 * export default defineExtension({
 *   name: 'acme-guard',
 *   options: Type.Object({ blocked: Type.Array(Type.String(), { default: [] }) }),
 *   settings: Type.Object({ limits: Type.Object({ maxLines: Type.Integer() }) }),
 *   setup(api, { blocked }) {
 *     api.log.info(`results are cut at ${api.settings.limits.maxLines} lines`);
 *     api.on('tool_call', (c) => (blocked.includes(c.toolName) ? { effect: 'deny', reason: 'blocked by acme' } : undefined),
 *       { name: 'acme-guard/blocklist', phase: 'authorize' });
 *   },
 * });
 */
export interface Extension<O extends TSchema = TSchema, S extends TObject = TObject<{}>> {
  name: string;
  /** Validates (and fills defaults into) the options settings give this extension. */
  options?: O;
  /**
   * The settings this extension reads: a TypeBox object whose keys are top-level settings keys
   * (`limits`, `telemetry`, `permissions` …), each with the schema of what the extension accepts
   * there. The host checks the merged value against it once, when the extension loads, and hands
   * it to `setup` frozen as `api.settings`; nothing else of the settings reaches the extension.
   * A value that does not fit fails the load with a message naming the extension, the key and
   * the settings file that set it (a policy extension's failure then blocks every tool).
   * `permissions` comes as the one list the host keeps, `{ effect, rule, layer, file? }[]`: each
   * rule with its list and the settings layer and file it came from.
   */
  settings?: S;
  /**
   * Register tools, handlers and listeners. What it returns (or resolves to) is kept for the
   * extension's commands (`input.extension.fromSetup`, see CommandDefinition); most return nothing.
   */
  setup(api: ExtensionAPI<Static<S>>, options: Static<O>): unknown;
  /**
   * How long `setup` may need with these (checked) options, in milliseconds, when that is more
   * than the host's own limit (10 s by default): an extension whose setup waits on something the
   * user configures (an MCP server's `startupTimeout`) says so here, and the host waits that long
   * (at most 10 minutes) instead of dropping it. Less than the host's limit changes nothing; a
   * throw or a value that is not a number is ignored.
   *
   * @example
   * setupTimeoutMs: (options) => Math.max(...Object.values(options.servers).map((s) => s.startupTimeout)) + 2_000,
   */
  setupTimeoutMs?(options: Static<O>): number;
  /**
   * Clean up when the host closes (`host.close()` / `kernel.dispose()`): end background processes,
   * flush and close files. Gets the same `api` its setup got, so state kept per host (a WeakMap
   * keyed by `api`) can be found again. Extensions are disposed newest first, one after another,
   * before the kernel's spills are closed; a throw or rejection is logged with the extension's
   * name and the others still run. Only called for an extension whose setup succeeded.
   *
   * @example
   * const jobs = new WeakMap<ExtensionAPI, JobPool>();
   * export default defineExtension({
   *   name: 'acme-jobs',
   *   setup(api) { jobs.set(api, new JobPool()); },
   *   async dispose(api) { await jobs.get(api)?.close(); },
   * });
   */
  dispose?(api: ExtensionAPI<Static<S>>): void | Promise<void>;
}

/** Identity helper that infers `options` and `api.settings` from their schemas. */
export function defineExtension<O extends TSchema, S extends TObject = TObject<{}>>(extension: Extension<O, S>): Extension<O, S> {
  return extension;
}

/** A value as the host hands it, frozen: every object and list in it read-only, all the way down. */
export type Frozen<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly Frozen<E>[]
    : T extends object
      ? { readonly [K in keyof T]: Frozen<T[K]> }
      : T;

/** The `airlock` field of an extension package's package.json. */
export interface ExtensionManifest {
  /** Entry module, relative to the package folder (TypeScript is fine: no build step). */
  extension: string;
  /** The kernel versions it works with, as a semver range. */
  kernel: string;
  provides?: { tools?: string[]; hooks?: string[] };
  description?: string;
  /**
   * The `airlock <name>` commands the package brings. `airlock --help` lists them from here alone;
   * `module` (a path inside the package, like `extension`) default-exports `defineCommand(...)`
   * and is imported only when the command runs or its help is shown.
   *
   * @example
   * "commands": [{ "name": "audit", "summary": "check and read the audit log", "module": "./src/command.ts" }]
   */
  commands?: DeclaredCommand[];
  /**
   * What the package says it reaches beyond the calls its tools are given: `processes` (it starts
   * programs) and `network` (it connects out). Shown before `airlock extensions add` installs it and
   * when `update` changes it; a declaration, not a permission: the policy and the OS sandbox enforce.
   *
   * @example "uses": ["processes"]
   */
  uses?: ExtensionUse[];
}

/** One entry of `ExtensionManifest.uses`. */
export type ExtensionUse = 'processes' | 'network';

/** One command of `ExtensionManifest.commands`. */
export interface DeclaredCommand {
  /** Lowercase letters, digits and `-`, starting with a letter; not one of airlock's own commands. */
  name: string;
  /** One line for `airlock --help`. */
  summary: string;
  /** The command module, relative to the package folder. */
  module: string;
}

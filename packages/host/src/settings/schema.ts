/**
 * The settings schema: one TypeBox schema validates every layer (user file, project file, CLI
 * flags). Every field is optional in a layer; what a field means, and its default, is written
 * where the field is declared, and the built-in defaults layer is derived from those `default`s.
 *
 * Every string-valued field says what it names (value-kind.ts): `path`, `program` and `code`
 * values are taken only from trusted layers; an untrusted project's are ignored with a warning.
 * A test fails for a string field without a mark, so a new one must choose.
 *
 * How layers merge is in merge.ts; where layers come from is in layers.ts.
 */
import { DEFAULT_IMAGE_LIMITS, DEFAULT_LIMITS, DEFAULT_SPILL_BUDGET_BYTES, DEFAULT_SPILL_RETENTION_MS, DEFAULT_SPILL_TOTAL_BYTES } from '@airlock/toolkit';
import { type TruncationLimits } from '@airlock/contract';
import Type, { type Static, type TOptional, type TProperties } from 'typebox';
import { valueKind } from './value-kind.js';

/**
 * The time limit of every tool call unless settings say otherwise: 10 minutes. Long enough for a
 * build, short enough that a call stuck on a FIFO, a device or a hung process ends on its own.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;

/** Spills are kept this many days by default: the kernel's retention, in the unit people set. */
const DEFAULT_SPILL_RETENTION_DAYS = DEFAULT_SPILL_RETENTION_MS / 86_400_000;

// ─── extensions ─────────────────────────────────────────────────────────────────────────────

const ExtensionOptions = Type.Record(Type.String(), Type.Unknown(), {
  description: "The extension's options, checked against the extension's own schema when it loads. Replaces (does not merge with) options an earlier layer gave the same extension.",
  default: {},
});

const ExtensionEnabled = Type.Boolean({
  description: 'false keeps the entry but does not load it: to leave out a default extension or one an earlier layer listed (same as the string form "-<name>").',
  default: true,
});

const ExtensionOptional = Type.Boolean({
  description: 'true: if it cannot be found or loaded, say so and go on. Default false: a listed extension that fails blocks every tool (fail closed), unless its manifest says it brings only tools (then only those are missing).',
  default: false,
});

const ExtensionByName = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      description: "An npm package name (`@acme/tool-jira`), resolved from the project, then the user folder, then Airlock's own workspace.",
      ...valueKind('code'),
    }),
    options: Type.Optional(ExtensionOptions),
    enabled: Type.Optional(ExtensionEnabled),
    optional: Type.Optional(ExtensionOptional),
  },
  { additionalProperties: false, description: 'An extension package, by name.' },
);

const ExtensionByPath = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      description: 'A file or folder, relative to the settings file that names it (`./tools/jira.ts`); `~/` means the home folder.',
      ...valueKind('code'),
    }),
    options: Type.Optional(ExtensionOptions),
    enabled: Type.Optional(ExtensionEnabled),
    optional: Type.Optional(ExtensionOptional),
  },
  { additionalProperties: false, description: 'An extension file or folder, by path.' },
);

/**
 * One extension: a string, or an object with exactly one of `name` / `path`. A string that
 * starts with `./`, `../`, `/` or `~/` (or is absolute) is a path; anything else is a package name.
 * A string starting with `-` leaves that extension out (`"-@airlock/audit-log"`).
 */
export const ExtensionSpecSchema = Type.Union(
  [
    Type.String({
      minLength: 1,
      description: 'A package name (`@acme/tool-jira`) or a path (`./tools/jira.ts`) to add; `-` before it leaves that extension out (`-@airlock/audit-log`).',
      ...valueKind('code'),
    }),
    ExtensionByName,
    ExtensionByPath,
  ],
  { description: 'An extension to load: a package name or path, optionally with options.' },
);
export type ExtensionSpec = Static<typeof ExtensionSpecSchema>;

// ─── permissions ────────────────────────────────────────────────────────────────────────────

const RuleEffect = Type.Union([Type.Literal('deny'), Type.Literal('ask'), Type.Literal('allow')], {
  description: 'What the rule decides. Defaults to the list the rule is in; when given, it must agree with that list.',
});

const RuleObject = Type.Object(
  {
    effect: Type.Optional(RuleEffect),
    match: Type.String({
      minLength: 1,
      description: 'What the rule matches, in surface form: a tool (`bash`, `mcp:*`), a tool with an argument pattern (`bash(git push *)`) or a resource kind with a glob (`fs.read(**/.env)`, `net(*)`).',
      ...valueKind('text'),
    }),
    reason: Type.Optional(Type.String({ description: 'Why; shown to the user and the model when the rule decides.', ...valueKind('text') })),
    id: Type.Optional(Type.String({ minLength: 1, description: 'A stable name for the rule, used by `policy explain` and in audit records.', ...valueKind('text') })),
    examples: Type.Optional(
      Type.Object(
        {
          match: Type.Optional(Type.Array(Type.String(valueKind('text')), { description: 'Calls (surface form) the rule must match; checked when rules load.', default: [] })),
          notMatch: Type.Optional(Type.Array(Type.String(valueKind('text')), { description: 'Calls (surface form) the rule must not match; checked when rules load.', default: [] })),
        },
        { additionalProperties: false, description: 'Inline self-tests for the rule.', default: {} },
      ),
    ),
  },
  { additionalProperties: false, description: 'A rule with metadata.' },
);

/** A policy rule: its surface form (`"fs.read(**\/.env)"`) or an object with `match` and metadata. */
export const PermissionRuleSchema = Type.Union(
  [Type.String({ minLength: 1, description: 'A rule in surface form, e.g. `fs.read(**/.env)` or `bash(npm test*)`.', ...valueKind('text') }), RuleObject],
  { description: 'A policy rule (interpreted by the path-policy extension).' },
);
export type PermissionRule = Static<typeof PermissionRuleSchema>;
export type PermissionEffect = Static<typeof RuleEffect>;

function ruleList(description: string) {
  return Type.Array(PermissionRuleSchema, { description, default: [] });
}

// ─── sections ───────────────────────────────────────────────────────────────────────────────

/** A section: every field optional and closed to unknown keys; its default is its fields' defaults. */
function section<P extends TProperties>(properties: P, description: string) {
  const optional = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof P]: TOptional<P[K]>;
  };
  return Type.Object(optional, { additionalProperties: false, description, default: defaultsOf(properties) });
}

/** The `default` of every field that declares one (fields without one, such as `tools.allow`, stay absent). */
function defaultsOf(properties: TProperties): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    if ('default' in schema) out[key] = structuredClone((schema as { default: unknown }).default);
  }
  return out;
}

const sections = {
  extensions: Type.Array(ExtensionSpecSchema, {
    description:
      'Extensions added to the default set (the built-in tools plus audit-log, path-policy, approval and redact-secrets), in order. ' +
      'Lists from the user and project layers are concatenated; naming an extension again (a default one too) replaces its options in place. ' +
      '`"-<name>"` (or `{ "name": …, "enabled": false }`) leaves one out; leaving out a guard (audit-log, path-policy, approval, redact-secrets) prints a warning on every run. ' +
      'Code: an untrusted project\'s entries are skipped (and reported), so it can neither add code nor leave a default out.',
    default: [],
    ...valueKind('code'),
  }),

  tools: section(
    {
      allow: Type.Array(Type.String({ minLength: 1, ...valueKind('text') }), {
        description: 'Only these tools are enabled (all sources). `[]` means none. Default: every registered tool (no allowlist). CLI: --tools. Replaces an earlier layer\'s list.',
      }),
      exclude: Type.Array(Type.String({ minLength: 1, ...valueKind('text') }), {
        description: 'Tools left out; wins over `allow`. CLI: --exclude-tools. Replaces an earlier layer\'s list.',
        default: [],
      }),
      noBuiltin: Type.Boolean({ description: 'Leave out the built-in tools; extension and SDK tools stay. CLI: --no-builtin-tools.', default: false }),
      none: Type.Boolean({ description: 'No tools at all, whatever else is set. CLI: --no-tools.', default: false }),
    },
    "Which registered tools the model sees (the kernel's selection: tools / excludeTools / noBuiltinTools / noTools).",
  ),

  permissions: section(
    {
      deny: ruleList('Calls that never run. A deny in any layer stays: lists are a union across layers.'),
      ask: ruleList('Calls that need the user\'s approval. Union across layers.'),
      allow: ruleList('Calls that run without asking (unless a deny or ask rule also matches). Union across layers.'),
    },
    'Policy rules, merged as a union across layers; a deny wins over ask, ask over allow.',
  ),

  execution: section(
    {
      mode: Type.Union([Type.Literal('parallel'), Type.Literal('sequential')], {
        description: 'How the calls of one batch run: concurrently (after preflight, results in source order) or one at a time. CLI: --sequential.',
        default: 'parallel',
      }),
      maxConcurrency: Type.Integer({ minimum: 1, description: 'Calls of one batch running at once in parallel mode. CLI: --max-concurrency.', default: 8 }),
      timeoutMs: Type.Integer({
        minimum: 0,
        description:
          'Time limit of every tool call in milliseconds (bash\'s own `timeout` included: this caps it). 0 means none. ' +
          'Default 600000 (10 minutes): a call stuck on a pipe, a device or a hung process must end some day. CLI: call --timeout-ms.',
        default: DEFAULT_CALL_TIMEOUT_MS,
        // An untrusted project must not lift it (0 = none).
        ...valueKind('limit'),
      }),
    },
    'How tool calls execute.',
  ),

  limits: section(
    {
      maxLines: Type.Integer({ minimum: 1, description: 'Lines of tool output that enter the model\'s context at most.', default: DEFAULT_LIMITS.maxLines }),
      maxBytes: Type.Integer({ minimum: 1, description: 'UTF-8 bytes of tool output that enter the model\'s context at most.', default: DEFAULT_LIMITS.maxBytes }),
      spillDir: Type.String({
        minLength: 1,
        description:
          'Folder for full outputs that were cut (one sub-folder per session). Relative paths resolve against the settings file. Default: <os tmpdir>/airlock-spill-<uid> (one per user: a shared folder would let one user block another). ' +
          'A path: ignored in an untrusted project.',
        ...valueKind('path'),
      }),
      spillBudget: Type.Integer({ minimum: 1, description: 'Bytes the spill folder may use per session; the oldest files go first.', default: DEFAULT_SPILL_BUDGET_BYTES }),
      spillRetentionDays: Type.Number({
        exclusiveMinimum: 0,
        description:
          'Days a session\'s spill files are kept after its last write. They outlive the run (a result names them, and the model reads them later); ' +
          'older sessions are removed when a later run first spills. Only a trusted layer may set it.',
        default: DEFAULT_SPILL_RETENTION_DAYS,
        ...valueKind('limit'),
      }),
      spillTotalBudget: Type.Integer({
        minimum: 1,
        description: 'Bytes all sessions\' spill files may use together; past it the oldest sessions are removed when a run first spills. Only a trusted layer may set it.',
        default: DEFAULT_SPILL_TOTAL_BYTES,
        ...valueKind('limit'),
      }),
    },
    'How much tool output reaches the model; the rest is spilled to disk.',
  ),

  images: section(
    {
      autoResize: Type.Boolean({
        description: 'Shrink an image over maxDimension or maxBytes (and say by what factor) instead of replacing it with a note.',
        default: true,
      }),
      maxDimension: Type.Integer({ minimum: 16, description: 'Largest width and height, in pixels, of an image sent to the model.', default: DEFAULT_IMAGE_LIMITS.maxDimension }),
      maxBytes: Type.Integer({
        minimum: 1024,
        description: 'Largest image sent to the model, in bytes of its base64 text (providers cap this: Anthropic at 5 MiB).',
        default: DEFAULT_IMAGE_LIMITS.maxBytes,
      }),
      blockImages: Type.Boolean({ description: 'Replace every image in tool results with a short text note.', default: false }),
    },
    'Images in tool results.',
  ),

  sandbox: section(
    {
      mode: Type.Union([Type.Literal('auto'), Type.Literal('required'), Type.Literal('off')], {
        description:
          'The OS sandbox (bubblewrap on Linux) under every process a tool starts. auto: use it where it can start, else warn once and let the shell analysis ask more; ' +
          'where it starts without its seccomp filter (Unix sockets then reachable), run it and warn once; ' +
          'required: refuse to run commands without it, or without the filter; off: never. Only your user settings or a trusted project may set it.',
        default: 'auto',
        ...valueKind('guard'),
      }),
    },
    'The OS sandbox commands run in (see docs/security.md).',
  ),

  telemetry: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'OpenTelemetry export (the @airlock/telemetry extension checks the fields: enabled, endpoint, protocol, serviceName, resourceAttributes, headers, flushTimeoutMs, exportContent; see docs/fleet.md). ' +
      'The OTEL_* environment variables win over it. Only your user settings or a trusted project may set it: it decides where call data is sent.',
    default: {},
    ...valueKind('guard'),
  }),

  providers: section(
    {
      openai: providerSettings('OpenAI (and OpenAI-compatible servers: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter)', 'OPENAI_API_KEY'),
      anthropic: providerSettings('Anthropic', 'ANTHROPIC_API_KEY'),
    },
    'Model providers for `airlock run --model provider:name`: keys and base URLs. ' +
      'Only your user settings (and the command line) may set them; a project\'s, trusted or not, are ignored with a warning, so a project can never send your key elsewhere.',
  ),

  trust: section(
    {
      default: Type.Union([Type.Literal('ask'), Type.Literal('always'), Type.Literal('never')], {
        description:
          'For a project folder with no stored trust decision: ask (untrusted without a TTY), always trust, or never trust. Only untrusted projects lose their extensions; their other settings apply.',
        default: 'ask',
      }),
    },
    'Project trust: project settings may load extensions only in a trusted folder.',
  ),
};

/**
 * One provider's keys and URL. Every field is a `credential`: the user's key, where it is read
 * from, or where it is sent. An `apiKey` in a file others may read gets a warning at load.
 */
function providerSettings(label: string, envVar: string) {
  return Type.Object(
    {
      apiKey: Type.Optional(
        Type.String({
          minLength: 1,
          description: `The ${label} API key. Wins over apiKeyEnv and ${envVar}. Prefer the variable: a key in a file others may read gets a warning.`,
          ...valueKind('credential'),
        }),
      ),
      apiKeyEnv: Type.Optional(
        Type.String({
          minLength: 1,
          pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
          description: `The environment variable the key is read from instead of ${envVar} (e.g. OPENROUTER_API_KEY).`,
          ...valueKind('credential'),
        }),
      ),
      baseUrl: Type.Optional(
        Type.String({
          minLength: 1,
          pattern: '^https?://',
          description: 'Where the API is (http:// or https://); the key is sent there. --base-url wins over it.',
          ...valueKind('credential'),
        }),
      ),
    },
    { additionalProperties: false, description: `${label}: the key and where it is sent.` },
  );
}

/** One settings layer: what a settings file (or the CLI) may contain. Unknown keys are errors. */
export const SettingsSchema = Type.Object(
  Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof sections]: TOptional<(typeof sections)[K]>;
  },
  { additionalProperties: false, description: 'Airlock settings (one layer).' },
);

/**
 * One layer's values, as written in a settings file or given as flags (which layer it is, is a
 * `SettingsLayerName`).
 */
export type SettingsLayer = Static<typeof SettingsSchema>;

/** `permissions`: the deny, ask and allow lists, as a settings file and a package's `airlock.rules` write them. */
export const PermissionsSchema = sections.permissions;
export type Permissions = Static<typeof PermissionsSchema>;

/**
 * Keys a package's `airlock.settings` may not set: `permissions` (its rules go in `airlock.rules`,
 * one place each), and what only the person decides: `trust` (which folders run code) and
 * `providers` (a key, and where it is sent).
 */
export const NOT_IN_PACKAGE_SETTINGS: Readonly<Record<string, string>> = {
  permissions: 'rules go in "airlock.rules" ({ "deny": [...], "ask": [...], "allow": [...] })',
  trust: 'which folders may run code is the person\'s decision, made in their own settings',
  providers: "a model provider's key and where it is sent are set only in the user's settings",
};

/**
 * A package's `airlock.settings`: the settings schema itself, without the keys above; an
 * unknown key is an error, as in a settings file.
 */
export const PackageSettingsSchema = Type.Object(
  Object.fromEntries(Object.entries(sections).filter(([k]) => !(k in NOT_IN_PACKAGE_SETTINGS)).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in Exclude<keyof typeof sections, 'permissions' | 'trust' | 'providers'>]: TOptional<(typeof sections)[K]>;
  },
  { additionalProperties: false, description: "Settings defaults a package brings (package.json → airlock.settings); they sit just under the settings layer that names the package." },
);
export type PackageSettings = Static<typeof PackageSettingsSchema>;

/** The known top-level keys, for suggestions. */
export const SETTING_KEYS: readonly string[] = Object.keys(sections);

/**
 * Merged settings, every default filled in. Only `tools.allow` and `limits.spillDir` may stay
 * unset. The permission rules are not here: they are kept once, as `LoadedSettings.permissions`,
 * each with the layer and file it came from.
 */
export type Settings = {
  extensions: ExtensionSpec[];
  tools: { allow?: string[]; exclude: string[]; noBuiltin: boolean; none: boolean };
  execution: { mode: 'parallel' | 'sequential'; maxConcurrency: number; timeoutMs: number };
  limits: TruncationLimits & { spillDir?: string; spillBudget: number; spillRetentionDays: number; spillTotalBudget: number };
  images: { autoResize: boolean; blockImages: boolean; maxDimension: number; maxBytes: number };
  trust: { default: 'ask' | 'always' | 'never' };
  sandbox: { mode: 'auto' | 'required' | 'off' };
  telemetry: Record<string, unknown>;
  providers: { openai?: ProviderSettings; anthropic?: ProviderSettings };
};

/** One provider's section of `providers`. */
export interface ProviderSettings {
  apiKey?: string;
  apiKeyEnv?: string;
  baseUrl?: string;
}

/** The built-in defaults layer, read off the schema's `default`s (a fresh copy on every call); no rules. */
export function defaultSettings(): Settings {
  const { permissions: _noRules, ...defaults } = defaultsOf(sections);
  return defaults as Settings;
}

/**
 * Identity helper for TypeScript settings files: types the object, nothing else.
 *
 * @example
 * // airlock.config.ts
 * import { defineSettings } from '@airlock/host';
 * export default defineSettings({ execution: { mode: 'sequential' }, permissions: { deny: ['fs.read(**\/.env)'] } });
 */
export function defineSettings<const S extends SettingsLayer>(settings: S): S {
  return settings;
}

/**
 * Every settings diagnostic, in one place. A bad settings file stops Airlock before anything
 * runs, so each error says which file (and which layer), where inside it, and what was expected.
 * Codes are stable API; the wording may change.
 */
import { AirlockError, registerErrorCodes, type ErrorCodeSpec } from '@airlock/toolkit';
import type { SchemaProblem } from '@airlock/toolkit/util';
import { displayText } from '@airlock/toolkit/display';

/** Which layer settings come from, lowest precedence first (what a layer holds is a `SettingsLayer`). */
export type SettingsLayerName = 'defaults' | 'user' | 'project' | 'local' | 'code' | 'cli';

export type SettingsErrorCode =
  /** The values break the schema (wrong type, out of range, unknown key …). */
  | 'AIRLOCK_SETTINGS_INVALID'
  /** The file does not parse as JSON, YAML, TypeScript or JavaScript. */
  | 'AIRLOCK_SETTINGS_SYNTAX'
  /** The file exists but cannot be read (permissions, a folder …). */
  | 'AIRLOCK_SETTINGS_UNREADABLE'
  /** An explicit `--settings FILE` does not exist (or a package.json there has no `airlock` field). */
  | 'AIRLOCK_SETTINGS_NOT_FOUND'
  /** A TypeScript/JavaScript settings module threw, or one of its imports failed. */
  | 'AIRLOCK_SETTINGS_LOAD_FAILED'
  /** Someone else could have written the file (group/other-writable, or a stranger's file in a world-writable folder). */
  | 'AIRLOCK_SETTINGS_UNSAFE_FILE'
  /** A project's package.json holds settings (an `airlock` field): not read, since any tool that edits package.json could change them. */
  | 'AIRLOCK_SETTINGS_IN_PACKAGE_JSON';

const SETTINGS_ERROR_CODES: Record<SettingsErrorCode, ErrorCodeSpec> = {
  AIRLOCK_SETTINGS_INVALID: {
    severity: 'error',
    message: 'Invalid settings: {file} ({layer}) has {n} problems, each with its property path and what was expected. Nothing was run.',
    action: 'Fix the file (or the flags) as each problem says, and run again.',
  },
  AIRLOCK_SETTINGS_SYNTAX: {
    severity: 'error',
    message: 'Cannot parse {file} at line {line}, column {column}: {reason}. Nothing was run.',
    action: 'Fix the syntax and run again.',
  },
  AIRLOCK_SETTINGS_UNREADABLE: {
    severity: 'error',
    message: 'Cannot read {file}: {reason}. Nothing was run.',
    action: 'Check that it is a readable file (permissions, not a folder).',
  },
  AIRLOCK_SETTINGS_NOT_FOUND: {
    severity: 'error',
    message: 'Settings file not found: {file} (given with --settings, so no other file is searched). Nothing was run.',
    action: 'Check the path given to --settings.',
  },
  AIRLOCK_SETTINGS_LOAD_FAILED: {
    severity: 'error',
    message: 'Loading {file} failed: {reason} (the settings module threw, or one of its imports failed). Nothing was run.',
    action: 'Fix the module (or use .airlockrc.json) and run again.',
  },
  AIRLOCK_SETTINGS_UNSAFE_FILE: {
    severity: 'error',
    message: 'Refusing {file}: {reason} (someone else could have written it). Nothing was run.',
    action: 'Do what the message says (chmod go-w, or move the file out of a shared folder), and run again.',
  },
  AIRLOCK_SETTINGS_IN_PACKAGE_JSON: {
    severity: 'error',
    message:
      "Refusing {file}: its \"airlock\" field holds settings, and Airlock reads project settings only from its own files (.airlockrc*, airlock.config.*), which no tool may write. An agent edits package.json routinely, so settings there could be changed by the model they govern. Nothing was run.",
    action: 'Move the field\'s value into .airlockrc.json in the same folder and delete the field from package.json, then run again.',
  },
};
registerErrorCodes('host (settings)', SETTINGS_ERROR_CODES);

/**
 * One thing wrong in a settings layer: a schema problem (the one wording, `schemaProblems` in
 * `@airlock/toolkit/util`) or a rule a schema cannot say, with its property path inside the file
 * (`execution.maxConcurrency`, `permissions.deny[2]`; '' is the whole file).
 */
export type SettingsProblem = Pick<SchemaProblem, 'path' | 'message'>;

export interface SettingsErrorDetails {
  readonly file: string | undefined;
  readonly layer: SettingsLayerName | undefined;
  readonly problems: readonly SettingsProblem[];
  /** 1-based, for syntax errors when the parser reports a position. */
  readonly line?: number | undefined;
  readonly column?: number | undefined;
}

/**
 * A settings file (or the CLI flags) Airlock will not run with. Branded as an AirlockError, so
 * `isAirlockError(e)` recognises it; `file`, `problems`, `line` are also on the error itself.
 *
 * @example
 * try { await loadSettings({ cwd }); }
 * catch (e) { if (e instanceof SettingsError) { console.error(e.message); process.exitCode = 2; } else throw e; }
 */
export class SettingsError extends AirlockError<SettingsErrorCode, SettingsErrorDetails> {
  readonly file: string | undefined;
  readonly layer: SettingsLayerName | undefined;
  readonly problems: readonly SettingsProblem[];
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(code: SettingsErrorCode, message: string, details: SettingsErrorDetails, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = 'SettingsError';
    this.file = details.file;
    this.layer = details.layer;
    this.problems = details.problems;
    this.line = details.line;
    this.column = details.column;
  }
}

/** Where a layer came from, for messages. */
export interface SettingsSource {
  readonly layer: SettingsLayerName;
  /** Absolute path; undefined for the CLI flags and the built-in defaults. */
  readonly file?: string | undefined;
  /** Set when the settings sit under a field of the file (package.json → 'airlock'). */
  readonly field?: string | undefined;
}

const LAYER_TEXT: Record<SettingsLayerName, string> = {
  defaults: 'built-in defaults',
  user: 'user settings',
  project: 'project settings',
  local: 'local project rules',
  code: 'settings passed in code',
  cli: 'command-line flags',
};

/**
 * A path, a property path, a parser's or validator's words, in a message: one line, escaped
 * (displayText), so a line break in a folder's name or a settings value cannot add a line.
 */
function one(text: string): string {
  return displayText(text, { maxChars: 1000 });
}

/** `/p/package.json (field "airlock", project settings)` or `command-line flags`. */
export function describeSource(source: SettingsSource): string {
  if (!source.file) return LAYER_TEXT[source.layer];
  const field = source.field ? `field "${one(source.field)}", ` : '';
  return `${one(source.file)} (${field}${LAYER_TEXT[source.layer]})`;
}

function details(source: SettingsSource, problems: readonly SettingsProblem[], at?: { line?: number | undefined; column?: number | undefined }): SettingsErrorDetails {
  return { file: source.file, layer: source.layer, problems, line: at?.line, column: at?.column };
}

function bullet(problems: readonly SettingsProblem[]): string {
  return problems.map((p) => `  - ${p.path ? one(p.path) : '(top level)'}: ${one(p.message)}`).join('\n');
}

// ─── Factories ──────────────────────────────────────────────────────────────────────────────

/** The values break the schema; every problem is listed, not just the first. */
export function invalidSettings(source: SettingsSource, problems: readonly SettingsProblem[]): SettingsError {
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  const fix = source.file ? 'Fix the file and run again.' : source.layer === 'code' ? 'Fix the settings object your program passes and run again.' : 'Fix the flags and run again.';
  return new SettingsError(
    'AIRLOCK_SETTINGS_INVALID',
    `Invalid settings: ${describeSource(source)} has ${count}:\n${bullet(problems)}\n${fix} Nothing was run.`,
    details(source, problems),
  );
}

/** The file does not parse; `reason` is the parser's own words, `line`/`column` 1-based. */
export function settingsSyntaxError(
  source: SettingsSource & { file: string },
  reason: string,
  at: { line?: number | undefined; column?: number | undefined },
  cause: unknown,
): SettingsError {
  const where = at.line === undefined ? '' : ` at line ${at.line}${at.column === undefined ? '' : `, column ${at.column}`}`;
  return new SettingsError(
    'AIRLOCK_SETTINGS_SYNTAX',
    `Cannot parse ${describeSource(source)}${where}: ${one(reason)}\nFix the syntax and run again. Nothing was run.`,
    details(source, [{ path: '', message: reason }], at),
    { cause },
  );
}

/** The file is there but cannot be read. */
export function unreadableSettings(source: SettingsSource & { file: string }, cause: unknown): SettingsError {
  const reason = firstLineOf(cause);
  return new SettingsError(
    'AIRLOCK_SETTINGS_UNREADABLE',
    `Cannot read ${describeSource(source)}: ${one(reason)}\nCheck that it is a readable file. Nothing was run.`,
    details(source, [{ path: '', message: reason }]),
    { cause },
  );
}

/** An explicit `--settings FILE` that is not there: discovery is skipped, so this is an error, never a fallback. */
export function settingsFileNotFound(source: SettingsSource & { file: string }, reason: string, cause?: unknown): SettingsError {
  return new SettingsError(
    'AIRLOCK_SETTINGS_NOT_FOUND',
    `Settings file not found: ${one(source.file)} (${one(reason)}).\n` +
      'It was given explicitly (--settings), so Airlock does not search for another one. Check the path. Nothing was run.',
    details(source, [{ path: '', message: reason }]),
    cause === undefined ? undefined : { cause },
  );
}

/** A TS/JS settings module threw while loading, or could not resolve one of its imports. */
export function settingsLoadFailed(source: SettingsSource & { file: string }, cause: unknown): SettingsError {
  const reason = firstLineOf(cause);
  return new SettingsError(
    'AIRLOCK_SETTINGS_LOAD_FAILED',
    `Loading ${describeSource(source)} failed: ${one(reason)}\n` +
      'The settings module threw, or one of its imports failed. Fix it (or use .airlockrc.json) and run again. Nothing was run.',
    details(source, [{ path: '', message: reason }]),
    { cause },
  );
}

/**
 * A settings file someone else could have written: refused, not skipped — skipping it could drop
 * deny rules its owner relies on, and reading it could let a stranger decide what runs.
 */
export function unsafeSettingsFile(source: SettingsSource & { file: string }, unsafe: { reason: string; fix: string }): SettingsError {
  return new SettingsError(
    'AIRLOCK_SETTINGS_UNSAFE_FILE',
    `Refusing ${describeSource(source)}: ${unsafe.reason}.\n${unsafe.fix} Nothing was run.`,
    details(source, [{ path: '', message: unsafe.reason }]),
  );
}

/**
 * Project settings found in package.json's `airlock` field: refused, not skipped, so deny rules
 * kept there are never dropped without a word (and a field the model added stops the run instead
 * of changing the policy).
 */
export function settingsInPackageJson(file: string): SettingsError {
  const source = { layer: 'project' as const, file, field: 'airlock' };
  return new SettingsError(
    'AIRLOCK_SETTINGS_IN_PACKAGE_JSON',
    `Refusing ${describeSource(source)}: Airlock reads project settings only from its own files (.airlockrc*, airlock.config.*), which no tool may write; package.json is edited routinely, so settings there could be changed by the model they govern.\n` +
      'Move the field\'s value into .airlockrc.json in the same folder and delete the field from package.json. Nothing was run.',
    details(source, [{ path: 'airlock', message: 'settings in package.json are not read; move them to .airlockrc.json' }]),
  );
}

/** The first line of an error's message, without the stack. */
export function firstLineOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split('\n')[0]?.trim() || 'unknown error';
}

import { readFileSync } from 'node:fs';
import { extname, isAbsolute, join, normalize, sep } from 'node:path';
import { PHASES, POLICY_PHASES as KERNEL_POLICY_PHASES } from '@airlock/kernel';
import { type DeclaredCommand, type ExtensionManifest, type ExtensionUse } from '@airlock/contract';
import type { Diagnostic } from '@airlock/contract';
import { diagnostic, errorText, type Subject } from './diagnostics.js';
import { checkPackagePolicy, type PackagePolicy } from '../settings/package-policy.js';

/**
 * Reading and checking an extension package's `package.json#airlock`. Every problem found is
 * reported at once, so an author fixes the manifest in one round.
 */

/**
 * Phases (`hook:phase`) whose handlers decide whether a call runs or what anyone sees: their
 * failure blocks all tools. Read from the kernel's phase record, so a new policy phase counts here.
 */
export const POLICY_PHASES: readonly string[] = KERNEL_POLICY_PHASES;

/**
 * The CLI's own command words (and what commander reserves): no extension may declare them, so
 * `airlock call` always means the pipeline, whatever is installed. The CLI's tests check that
 * every command it defines is listed here.
 */
export const RESERVED_COMMANDS: readonly string[] = Object.freeze(['run', 'call', 'batch', 'tools', 'extensions', 'doctor', 'trust', 'sessions', 'replay', 'mcp', 'serve', 'help', 'version']);

/** A command word: lowercase letters, digits and `-`, starting with a letter, at most 40 characters. */
export const COMMAND_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** Module types jiti loads. */
export const LOADABLE = new Set(['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs']);

const HOOK_PHASES: Readonly<Record<string, readonly string[]>> = {
  tool_call: Object.values(PHASES).filter((row) => row.hook === 'tool_call').map((row) => row.phase),
  tool_result: Object.values(PHASES).filter((row) => row.hook === 'tool_result').map((row) => row.phase),
};

export type ManifestResult =
  | {
      ok: true;
      packageName: string;
      version: string;
      manifest: ExtensionManifest;
      /** `provides` with both lists present (empty when not declared). */
      provides: { tools: string[]; hooks: string[] };
      /** The manifest declares authorize, approve or redact handlers, or carries rules or settings. */
      policy: boolean;
      /** `airlock.rules` and `airlock.settings`, checked; absent when the manifest has neither. */
      carries?: PackagePolicy;
    }
  | {
      ok: false;
      diagnostic: Diagnostic;
      /** What could be read despite the problem: a broken manifest can still declare policy hooks. */
      packageName?: string;
      version?: string;
      policy: boolean;
      /** The manifest has `airlock.rules` or `airlock.settings` (valid or not): a policy pack, which fails closed wherever it is named. */
      carriesPolicy?: boolean;
    };

/**
 * Read `<packageDir>/package.json` and check its `airlock` field.
 *
 * @example
 * const m = readManifest('/p/node_modules/@acme/guard', { extension: '@acme/guard', layer: 'project' });
 * if (m.ok) console.log(m.manifest.extension, m.manifest.kernel); else report(m.diagnostic);
 */
export function readManifest(packageDir: string, subject: Subject): ManifestResult {
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  } catch (error) {
    const problem = error instanceof SyntaxError ? `package.json is not valid JSON: ${error.message}` : `package.json cannot be read: ${errorText(error)}`;
    return { ok: false, policy: false, diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, { packageDir, problems: [problem] }) };
  }
  if (!isRecord(pkg)) {
    return {
      ok: false,
      policy: false,
      diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, { packageDir, problems: ['package.json must hold a JSON object'] }),
    };
  }

  const problems: string[] = [];
  const packageName = typeof pkg.name === 'string' && pkg.name.trim() !== '' ? pkg.name : undefined;
  if (packageName === undefined) problems.push(`"name" must be a non-empty string, got ${show(pkg.name)}`);
  // A local extension may have no version; it only labels the tools' origin.
  const version = pkg.version === undefined ? '0.0.0' : typeof pkg.version === 'string' ? pkg.version : undefined;
  if (version === undefined) problems.push(`"version" must be a string, got ${show(pkg.version)}`);

  const raw = pkg.airlock;
  const named = { ...(packageName === undefined ? {} : { packageName }), ...(version === undefined ? {} : { version }) };
  if (raw === undefined) {
    return {
      ok: false,
      policy: false,
      ...named,
      diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_MISSING', subject, { packageDir, ...(packageName ? { packageName } : {}) }),
    };
  }
  if (!isRecord(raw)) {
    problems.push(`"airlock" must be an object, got ${show(raw)}`);
    return { ok: false, policy: false, ...named, diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, { packageDir, problems }) };
  }

  checkEntry(raw.extension, problems);
  if (typeof raw.kernel !== 'string' || raw.kernel.trim() === '') {
    // An empty string would be the range "*" to semver: say which kernels you support instead.
    problems.push(`"airlock.kernel" must be a semver range such as "^1.0.0", got ${show(raw.kernel)}`);
  }
  if (raw.description !== undefined && typeof raw.description !== 'string') {
    problems.push(`"airlock.description" must be a string when given, got ${show(raw.description)}`);
  }
  const provides = checkProvides(raw.provides, problems);
  const commands = checkCommands(raw.commands, problems);
  const uses = checkUses(raw.uses, problems);
  // Rules and settings a package carries are policy: a broken set blocks like a broken guard.
  const carriesPolicy = raw.rules !== undefined || raw.settings !== undefined;
  const carried = carriesPolicy ? checkPackagePolicy({ rules: raw.rules, settings: raw.settings }, packageDir) : undefined;
  if (carried !== undefined && !carried.ok) problems.push(...carried.problems);
  const policy = carriesPolicy || provides.hooks.some((h) => POLICY_PHASES.includes(h));

  if (problems.length > 0) {
    return { ok: false, policy, ...(carriesPolicy ? { carriesPolicy } : {}), ...named, diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, { packageDir, problems }) };
  }
  const manifest: ExtensionManifest = { extension: raw.extension as string, kernel: raw.kernel as string };
  if (raw.provides !== undefined) manifest.provides = provides;
  if (typeof raw.description === 'string') manifest.description = raw.description;
  if (raw.commands !== undefined) manifest.commands = commands;
  if (uses !== undefined) manifest.uses = uses;
  return { ok: true, packageName: packageName!, version: version!, manifest, provides, policy, ...(carried?.ok ? { carries: carried.policy } : {}) };
}

/**
 * The manifest of an extension module handed over in code (`openHost({ modules })`): the same
 * checks as `package.json#airlock` minus the entry path (there is no file). `where` names it in
 * messages.
 *
 * @example
 * checkInlineManifest({ kernel: '^1.0.0', provides: { hooks: ['tool_call:authorize'] } }, '(in code) guard', subject);
 */
export function checkInlineManifest(
  raw: { kernel?: unknown; provides?: unknown },
  where: string,
  subject: Subject,
): { ok: true; manifest: ExtensionManifest; policy: boolean } | { ok: false; diagnostic: Diagnostic; policy: boolean } {
  const problems: string[] = [];
  // Default: any kernel; the module was compiled against the kernel this process runs.
  const kernel = raw.kernel ?? '*';
  if (typeof kernel !== 'string' || kernel.trim() === '') problems.push(`"kernel" must be a semver range such as "^1.0.0", got ${show(kernel)}`);
  const provides = checkProvides(raw.provides, problems);
  const policy = provides.hooks.some((h) => POLICY_PHASES.includes(h));
  if (problems.length > 0) {
    const renamed = problems.map((p) => p.replace(/"airlock\./g, '"'));
    return { ok: false, policy, diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, { packageDir: where, problems: renamed }) };
  }
  const manifest: ExtensionManifest = { extension: where, kernel: kernel as string };
  if (raw.provides !== undefined) manifest.provides = provides;
  return { ok: true, manifest, policy };
}

function checkEntry(entry: unknown, problems: string[]): void {
  checkModulePath(entry, '"airlock.extension"', './src/index.ts', problems);
}

/** A module a manifest names (`key`, e.g. `"airlock.extension"`): a loadable file inside the package. */
function checkModulePath(path: unknown, key: string, example: string, problems: string[]): path is string {
  if (typeof path !== 'string' || path.trim() === '') {
    problems.push(`${key} must name a module, e.g. "${example}", got ${show(path)}`);
    return false;
  }
  // The module must live inside the package: a manifest must not point at code somewhere else.
  const normal = normalize(path);
  if (isAbsolute(path) || normal === '..' || normal.startsWith(`..${sep}`)) {
    problems.push(`${key} must be a path inside the package, like "${example}", got ${show(path)}`);
    return false;
  }
  if (!LOADABLE.has(extname(path))) {
    problems.push(`${key} must be a .ts, .mts, .cts, .tsx, .js, .mjs or .cjs file, got ${show(path)}`);
    return false;
  }
  return true;
}

/** `airlock.uses`: what the package declares it reaches (shown before it is added; not a permission). */
function checkUses(raw: unknown, problems: string[]): ExtensionUse[] | undefined {
  if (raw === undefined) return undefined;
  const allowed: readonly ExtensionUse[] = ['processes', 'network'];
  if (!Array.isArray(raw) || raw.some((u) => !allowed.includes(u as ExtensionUse))) {
    problems.push(`"airlock.uses" must be an array of ${allowed.map((u) => `"${u}"`).join(' and ')}, got ${show(raw)}`);
    return undefined;
  }
  return [...new Set(raw as ExtensionUse[])];
}

/**
 * `airlock.commands`: each `{ name, summary, module }` usable as it stands, since `airlock --help`
 * lists them before any of the package's code is read. Whether each module exists is checked
 * where the package folder is known (resolve.ts).
 */
function checkCommands(raw: unknown, problems: string[]): DeclaredCommand[] {
  const out: DeclaredCommand[] = [];
  if (raw === undefined) return out;
  const example = '[{ "name": "my-report", "summary": "one line for airlock --help", "module": "./src/my-report.ts" }]';
  if (!Array.isArray(raw)) {
    problems.push(`"airlock.commands" must be an array like ${example}, got ${show(raw)}`);
    return out;
  }
  const seen = new Set<string>();
  raw.forEach((item: unknown, i) => {
    const key = `"airlock.commands[${i}]`;
    if (!isRecord(item)) {
      problems.push(`${key}" must be an object { "name", "summary", "module" }, got ${show(item)}`);
      return;
    }
    const before = problems.length;
    const { name, summary, module } = item;
    if (typeof name !== 'string' || !COMMAND_NAME.test(name)) {
      problems.push(`${key}.name" must be lowercase letters, digits and "-", starting with a letter (e.g. "my-report"), got ${show(name)}`);
    } else if (RESERVED_COMMANDS.includes(name)) {
      problems.push(`${key}.name" is "${name}", one of airlock's own commands (${RESERVED_COMMANDS.join(', ')}); choose another name`);
    } else if (seen.has(name)) {
      problems.push(`${key}.name" "${name}" is declared twice; each command once`);
    }
    if (typeof summary !== 'string' || summary.trim() === '' || /[\r\n]/.test(summary)) {
      problems.push(`${key}.summary" must be one line of text for airlock --help, got ${show(summary)}`);
    }
    checkModulePath(module, `${key}.module"`, './src/command.ts', problems);
    const unknown = Object.keys(item).filter((k) => !['name', 'summary', 'module'].includes(k));
    if (unknown.length > 0) problems.push(`${key}" has keys a command does not take: ${unknown.map((k) => `"${k}"`).join(', ')} (it takes "name", "summary" and "module"; the rest goes in the module)`);
    if (problems.length > before) return;
    seen.add(name as string);
    out.push({ name: name as string, summary: (summary as string).trim(), module: module as string });
  });
  return out;
}

function checkProvides(raw: unknown, problems: string[]): { tools: string[]; hooks: string[] } {
  const out = { tools: [] as string[], hooks: [] as string[] };
  if (raw === undefined) return out;
  if (!isRecord(raw)) {
    problems.push(`"airlock.provides" must be an object like { "tools": [...], "hooks": [...] }, got ${show(raw)}`);
    return out;
  }
  for (const key of ['tools', 'hooks'] as const) {
    const list = raw[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`"airlock.provides.${key}" must be an array of strings, got ${show(list)}`);
      continue;
    }
    list.forEach((item: unknown, i) => {
      if (typeof item !== 'string' || item.trim() === '') {
        problems.push(`"airlock.provides.${key}[${i}]" must be a non-empty string, got ${show(item)}`);
        return;
      }
      // Keep every string, even a malformed hook, so policy detection still sees "tool_call:authorize".
      out[key].push(item);
      if (key === 'hooks') {
        const problem = hookProblem(item);
        if (problem) problems.push(`"airlock.provides.hooks[${i}]" ${problem}`);
      }
    });
  }
  return out;
}

/** Hooks are declared as "<hook>:<phase>", e.g. "tool_call:authorize" or "tool_result:redact". */
function hookProblem(item: string): string | undefined {
  const [hook, phase, ...rest] = item.split(':');
  const phases = hook === undefined ? undefined : HOOK_PHASES[hook];
  if (phases === undefined || phase === undefined || rest.length > 0) {
    return `must be "<hook>:<phase>" (hooks: ${Object.keys(HOOK_PHASES).join(', ')}), got ${show(item)}`;
  }
  if (!phases.includes(phase)) return `names phase "${phase}", which ${hook} does not have (its phases: ${phases.join(', ')})`;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

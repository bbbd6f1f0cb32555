import type { AnyAgentTool } from '@airlock/contract';
import type { Diagnostic } from '@airlock/contract';
import { AirlockErrors, describeOrigin, type SelectionUnknownToolDetails } from '@airlock/toolkit';
import { jsonProblem } from '@airlock/toolkit';
import { closestNames } from '@airlock/toolkit';
import { didYouMean } from '@airlock/toolkit/util';
import { schemaRegexProblem } from '@airlock/toolkit/util';

/**
 * The first two of the three tool sets (all registered, enabled, serialized): the registry holds
 * every tool the host knows; `select` derives the enabled set. Provider schemas are built from a
 * selection in @airlock/toolkit (`toProviderTools`). Policy and host concerns stay outside: a deny rule arrives as plain names.
 */

export type ToolSource = 'builtin' | 'extension' | 'sdk';

export interface RegisterOptions {
  source: ToolSource;
  /** Who supplied the tool, for diagnostics: a package name, a file path. */
  origin?: string;
}

/** One registered tool and where it came from. Immutable. */
export interface RegisteredTool {
  readonly tool: AnyAgentTool;
  readonly source: ToolSource;
  readonly origin?: string;
  /** The registration this one replaced through `override: true` (which may itself override another). */
  readonly overrides?: RegisteredTool;
}

export interface SelectOptions {
  /** Strict allowlist over every source: only these names. `[]` means none; undefined means all. */
  tools?: readonly string[];
  /** No tools at all, whatever else is set. */
  noTools?: boolean;
  /** Leave out tools whose source is `builtin`; extension and SDK tools stay. */
  noBuiltinTools?: boolean;
  /** Leave these out; wins over `tools`. */
  excludeTools?: readonly string[];
  /** Bare-tool deny rules from policy: these never reach the model. */
  denyTools?: readonly string[];
}

export type ExclusionCode = 'no_tools' | 'not_in_allowlist' | 'no_builtin_tools' | 'excluded' | 'denied';

export interface ExclusionReason {
  readonly code: ExclusionCode;
  readonly text: string;
}


/** The enabled set: a snapshot, unaffected by later registrations. */
export interface ToolSelection {
  /** Enabled tools in registration order. */
  readonly enabled: readonly RegisteredTool[];
  readonly enabledNames: ReadonlySet<string>;
  /** Every registered tool that was left out, with every reason that applies (in a fixed order). */
  readonly excluded: ReadonlyMap<string, readonly ExclusionReason[]>;
  /** Human-readable warnings (unknown names, with suggestions). */
  readonly warnings: readonly string[];
  /** The same warnings with codes and details, for hosts that act on them. */
  readonly diagnostics: readonly Diagnostic<'AIRLOCK_SELECTION_UNKNOWN_TOOL', SelectionUnknownToolDetails>[];
  /** The enabled entry of this name; O(1). */
  get(name: string): RegisteredTool | undefined;
  /** Is this name enabled? O(1). */
  has(name: string): boolean;
  /** One sentence on why `name` is (not) enabled and where it came from. */
  explain(name: string): string;
}

const NAME_PATTERN = /^[a-z0-9_:\-/]+$/;
const NAME_MAX = 64;
const SOURCES: readonly ToolSource[] = ['builtin', 'extension', 'sdk'];
const EXECUTION_MODES = ['parallel', 'sequential'];
const REPLAY_MODES = ['never', 'safe'];

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Every problem with a definition, so one load attempt reports all of them. */
function validate(tool: unknown, options: RegisterOptions): string[] {
  const problems: string[] = [];
  if (!SOURCES.includes(options.source)) {
    problems.push(`source must be one of ${SOURCES.map((s) => `"${s}"`).join(', ')}, got ${show(options.source)}`);
  }
  if (options.origin !== undefined && typeof options.origin !== 'string') {
    problems.push(`origin must be a string when given, got ${show(options.origin)}`);
  }
  if (typeof tool !== 'object' || tool === null) {
    problems.push(`a tool must be an object, got ${show(tool)}`);
    return problems;
  }
  const t = tool as Record<string, unknown>;

  if (typeof t.name !== 'string' || t.name.length === 0) {
    problems.push(`name must be a non-empty string, got ${show(t.name)}`);
  } else {
    if (!NAME_PATTERN.test(t.name)) {
      problems.push(
        `name ${show(t.name)} may only contain lowercase letters, digits and _ : - / ` +
          `(e.g. ${show(t.name.toLowerCase().replace(/[^a-z0-9_:\-/]+/g, '_'))})`,
      );
    }
    if (t.name.length > NAME_MAX) problems.push(`name is ${t.name.length} characters long; the limit is ${NAME_MAX}`);
  }
  if (!isNonEmptyString(t.label)) problems.push(`label must be a non-empty string, got ${show(t.label)}`);
  if (!isNonEmptyString(t.description)) {
    problems.push(`description must be a non-empty string (it is what the model reads), got ${show(t.description)}`);
  }

  const params = t.parameters;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    problems.push(`parameters must be a JSON Schema object such as Type.Object({...}), got ${show(params)}`);
  } else {
    const schema = params as Record<string, unknown>;
    if (schema.type !== 'object') {
      problems.push(
        `parameters must describe an object (type "object"), got type ${show(schema.type)}; ` +
          'wrap the arguments in Type.Object({...})',
      );
    }
    if (schema.properties !== undefined && (typeof schema.properties !== 'object' || schema.properties === null || Array.isArray(schema.properties))) {
      problems.push(`parameters.properties must be an object, got ${show(schema.properties)}`);
    }
    const notJson = jsonProblem(params);
    if (notJson) problems.push(`parameters must be plain JSON to reach a provider: ${notJson.replace(/^\$/, 'parameters')}`);
    // Prepared here, once: each call's check reuses it (util/linear-schema.ts).
    const regex = schemaRegexProblem(params);
    if (regex) problems.push(`parameters ${regex.replace(/^#/, 'at #')}`);
  }

  if (typeof t.execute !== 'function') problems.push(`execute must be a function, got ${show(t.execute)}`);
  for (const key of ['prepareArguments', 'resources', 'analyzeCommand'] as const) {
    if (t[key] !== undefined && typeof t[key] !== 'function') problems.push(`${key} must be a function when given, got ${show(t[key])}`);
  }
  if (t.executionMode !== undefined && !EXECUTION_MODES.includes(t.executionMode as string)) {
    problems.push(`executionMode must be "parallel" or "sequential", got ${show(t.executionMode)}`);
  }
  if (t.replay !== undefined && !REPLAY_MODES.includes(t.replay as string)) {
    problems.push(`replay must be "never" or "safe", got ${show(t.replay)}`);
  }
  if (t.effects !== undefined && t.effects !== 'unknown') problems.push(`effects must be "unknown" when given, got ${show(t.effects)}`);
  if (t.judgedBy !== undefined && !isNonEmptyString(t.judgedBy)) problems.push(`judgedBy must be a non-empty string when given, got ${show(t.judgedBy)}`);
  if (t.override !== undefined && typeof t.override !== 'boolean') {
    problems.push(`override must be a boolean when given, got ${show(t.override)}`);
  }
  return problems;
}

function entry(tool: AnyAgentTool, source: ToolSource, origin: string | undefined, overrides: RegisteredTool | undefined): RegisteredTool {
  const e: { tool: AnyAgentTool; source: ToolSource; origin?: string; overrides?: RegisteredTool } = { tool, source };
  if (origin !== undefined) e.origin = origin;
  if (overrides !== undefined) e.overrides = overrides;
  return Object.freeze(e);
}

/** One name's registrations, oldest first; the last one is the active tool. */
interface Slot {
  readonly stack: { readonly token: object; readonly tool: AnyAgentTool; readonly source: ToolSource; readonly origin: string | undefined }[];
  active: RegisteredTool;
}

function build(stack: Slot['stack']): RegisteredTool {
  let current: RegisteredTool | undefined;
  for (const layer of stack) current = entry(layer.tool, layer.source, layer.origin, current);
  if (!current) throw new Error('unreachable: an empty slot is deleted, never built');
  return current;
}

const REASON_ORDER: readonly ExclusionCode[] = ['no_tools', 'not_in_allowlist', 'no_builtin_tools', 'excluded', 'denied'];

function listNames(names: readonly string[]): string {
  return names.length === 0 ? '[]' : names.join(', ');
}

/**
 * Every tool the host knows, by name.
 *
 * @example
 * const registry = new ToolRegistry();
 * const off = registry.register(readTool, { source: 'builtin' });
 * registry.register(myRead, { source: 'extension', origin: '@acme/fs' }); // throws AIRLOCK_TOOL_DUPLICATE
 * const selection = registry.select({ tools: ['read'], excludeTools: ['bash'] });
 * off(); // unregister
 */
export class ToolRegistry {
  /** Map order is registration order; an override keeps the slot of the tool it replaces. */
  readonly #slots = new Map<string, Slot>();
  #revision = 0;
  readonly #changeListeners = new Set<() => void>();
  #changeQueued = false;

  /** Changes whenever a registration is added or removed: a cheap key for caching selections. */
  get revision(): number {
    return this.#revision;
  }

  /**
   * Be told when registrations were added or removed. Changes made together (an extension
   * replacing its tool set: several adds and removes in one go) are told once, on the next
   * microtask. A listener that throws is skipped; the others still hear it. Returns the function
   * that stops listening.
   *
   * @example
   * const off = kernel.registry.onChange(() => console.log('tools now:', kernel.registry.list().map((t) => t.tool.name)));
   */
  onChange(listener: () => void): () => void {
    if (typeof listener !== 'function') throw new TypeError(`registry.onChange needs a function, got ${typeof listener}`);
    const entry = (): void => listener();
    this.#changeListeners.add(entry);
    return () => void this.#changeListeners.delete(entry);
  }

  #changed(): void {
    this.#revision++;
    if (this.#changeQueued || this.#changeListeners.size === 0) return;
    this.#changeQueued = true;
    queueMicrotask(() => {
      this.#changeQueued = false;
      for (const listener of [...this.#changeListeners]) {
        try {
          listener();
        } catch {
          // An observer's failure is its own: the registration stands and the others still hear it.
        }
      }
    });
  }

  /**
   * Add a tool. Throws AIRLOCK_TOOL_INVALID_DEFINITION (listing every problem) or, when the name
   * is taken and the new tool does not say `override: true`, AIRLOCK_TOOL_DUPLICATE.
   * Returns a function that removes this registration again; removing an override brings back
   * the tool it replaced.
   */
  register(tool: AnyAgentTool, options: RegisterOptions): () => void {
    const problems = validate(tool, options);
    const origin = options.origin;
    if (problems.length > 0) {
      const given = (tool as { name?: unknown } | null)?.name;
      const name = typeof given === 'string' && given.length > 0 ? given : '<unnamed>';
      throw AirlockErrors.AIRLOCK_TOOL_INVALID_DEFINITION({ tool: name, source: String(options.source), origin, problems });
    }

    const layer = { token: {}, tool, source: options.source, origin };
    const slot = this.#slots.get(tool.name);
    if (slot) {
      if (tool.override !== true) {
        throw AirlockErrors.AIRLOCK_TOOL_DUPLICATE({
          tool: tool.name,
          existing: { source: slot.active.source, origin: slot.active.origin },
          incoming: { source: options.source, origin },
        });
      }
      slot.stack.push(layer);
      slot.active = build(slot.stack);
    } else {
      this.#slots.set(tool.name, { stack: [layer], active: build([layer]) });
    }
    this.#changed();

    let done = false;
    return () => {
      if (done) return;
      done = true;
      const current = this.#slots.get(tool.name);
      if (!current) return;
      const index = current.stack.findIndex((l) => l.token === layer.token);
      if (index < 0) return;
      current.stack.splice(index, 1);
      if (current.stack.length === 0) this.#slots.delete(tool.name);
      else current.active = build(current.stack);
      this.#changed();
    };
  }

  get(name: string): RegisteredTool | undefined {
    return this.#slots.get(name)?.active;
  }

  has(name: string): boolean {
    return this.#slots.has(name);
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Every active registration, in registration order. */
  list(): RegisteredTool[] {
    return Array.from(this.#slots.values(), (slot) => slot.active);
  }

  /**
   * The enabled set. Every rule only removes tools, so the order of the options does not matter:
   * a tool is enabled when no rule leaves it out.
   *
   * @example
   * registry.select({ tools: [] });                     // nothing
   * registry.select({ noBuiltinTools: true });          // extension and SDK tools only
   * registry.select({ tools: ['read', 'bash'], excludeTools: ['bash'] }); // read
   */
  select(options: SelectOptions = {}): ToolSelection {
    const all = this.list();
    const allNames = all.map((r) => r.tool.name);
    const known = new Map(all.map((r) => [r.tool.name, r] as const));
    const allow = options.tools === undefined ? undefined : new Set(options.tools);
    const exclude = new Set(options.excludeTools ?? []);
    const deny = new Set(options.denyTools ?? []);

    const text: Record<ExclusionCode, string> = {
      no_tools: 'all tools are off (noTools)',
      not_in_allowlist:
        options.tools !== undefined && options.tools.length === 0
          ? 'the allowlist is empty (tools: [])'
          : `not in the allowlist (tools: ${listNames(options.tools ?? [])})`,
      no_builtin_tools: 'built-in tools are off (noBuiltinTools)',
      excluded: 'listed in excludeTools',
      denied: 'denied by a policy rule (denyTools)',
    };

    const enabled: RegisteredTool[] = [];
    const byName = new Map<string, RegisteredTool>();
    const excluded = new Map<string, readonly ExclusionReason[]>();
    for (const registered of all) {
      const name = registered.tool.name;
      const applies: Record<ExclusionCode, boolean> = {
        no_tools: options.noTools === true,
        not_in_allowlist: allow !== undefined && !allow.has(name),
        no_builtin_tools: options.noBuiltinTools === true && registered.source === 'builtin',
        excluded: exclude.has(name),
        denied: deny.has(name),
      };
      const reasons = REASON_ORDER.filter((code) => applies[code]).map((code) => Object.freeze({ code, text: text[code] }));
      if (reasons.length === 0) {
        enabled.push(registered);
        byName.set(name, registered);
      } else {
        excluded.set(name, Object.freeze(reasons));
      }
    }

    // Deny rules come from policy, which may name tools this host never loaded: no warning there.
    const diagnostics: ToolSelection['diagnostics'][number][] = [];
    const warned = new Set<string>();
    for (const [option, names] of [['tools', options.tools ?? []], ['excludeTools', options.excludeTools ?? []]] as const) {
      for (const name of names) {
        const key = `${option}\0${name}`;
        if (known.has(name) || warned.has(key)) continue;
        warned.add(key);
        const details = { name, option, candidates: closestNames(name, allNames) };
        diagnostics.push(
          Object.freeze({
            code: AirlockErrors.AIRLOCK_SELECTION_UNKNOWN_TOOL.code,
            severity: 'warning',
            message: AirlockErrors.AIRLOCK_SELECTION_UNKNOWN_TOOL.render(details),
            details: Object.freeze(details),
          }),
        );
      }
    }

    const frozenEnabled = Object.freeze(enabled);
    const enabledNames: ReadonlySet<string> = new Set(byName.keys());

    const explain = (name: string): string => {
      const active = byName.get(name);
      if (active) {
        let line = `"${name}" is enabled: ${describeOrigin(active)}.`;
        for (let replaced = active.overrides; replaced; replaced = replaced.overrides) {
          line += ` It overrides the tool from ${describeOrigin(replaced)}.`;
        }
        return line;
      }
      const reasons = excluded.get(name);
      if (reasons) {
        const registered = known.get(name);
        const from = registered ? ` (${describeOrigin(registered)})` : '';
        return `"${name}"${from} is left out: ${reasons.map((r) => r.text).join('; ')}.`;
      }
      const candidates = closestNames(name, allNames);
      const hint = candidates.length > 0 ? ` ${didYouMean(candidates)}` : '';
      return `"${name}" is not a registered tool.${hint}`;
    };

    return Object.freeze({
      enabled: frozenEnabled,
      enabledNames,
      excluded,
      warnings: Object.freeze(diagnostics.map((d) => d.message)),
      diagnostics: Object.freeze(diagnostics),
      get: (name: string) => byName.get(name),
      has: (name: string) => byName.has(name),
      explain,
    });
  }
}

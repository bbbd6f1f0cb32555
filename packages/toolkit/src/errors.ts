/**
 * The kernel's diagnostics, in one place. Every error the kernel raises (and every warning it
 * renders) comes from a factory below, keyed by a stable code that hosts, tests and docs can
 * match on; the message is for people and may be reworded, the code and `details` may not.
 *
 * Each message says what happened, why, how to fix it, and (when there is a likely intended
 * value) the candidates. Each code is also an entry of the error catalogue (error-catalogue.ts),
 * with who raises it and what to do, from which docs/errors.md is generated. New areas add a
 * section with a comment header; codes are never reused.
 */

import { registerErrorCodes, type ErrorCodeSpec } from './error-catalogue.js';
import { didYouMean } from './suggest.js';
import { displayFields } from './display/untrusted-text.js';

const BRAND = Symbol.for('airlock.error');

/** Extra structured data on an error; always plain JSON-friendly values. */
export type AirlockErrorDetails = Readonly<Record<string, unknown>>;

/**
 * An error with a stable `code` and structured `details`.
 *
 * @example
 * try { registry.register(tool, { source: 'extension', origin: '@acme/fs' }); }
 * catch (e) { if (isAirlockError(e, 'AIRLOCK_TOOL_DUPLICATE')) log(e.details.tool); else throw e; }
 */
export class AirlockError<C extends string = string, D extends object = AirlockErrorDetails> extends Error {
  readonly code: C;
  readonly details: D;

  constructor(code: C, message: string, details: D, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AirlockError';
    this.code = code;
    this.details = details;
    // A brand instead of `instanceof` alone: two copies of the kernel in one process (a host and
    // an extension bundling its own) must still recognise each other's errors.
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** A catalogue entry: call it to build the error, or `render` the message alone for a warning. */
export interface ErrorFactory<C extends string, D extends object> {
  (details: D, options?: { cause?: unknown }): AirlockError<C, D>;
  readonly code: C;
  render(details: D): string;
}

/**
 * A kernel error: its catalogue entry (docs/errors.md) and the function that words its message.
 * The message is worded from the details as displayFields shows them (a tool or handler name
 * from an extension stays on one line, escaped); the error keeps the details as they are.
 */
function define<C extends string, D extends object>(code: C, spec: ErrorCodeSpec, words: (details: D) => string): ErrorFactory<C, D> {
  registerErrorCodes('kernel', { [code]: spec });
  const render = (details: D): string => words(displayFields(details));
  const factory = (details: D, options?: { cause?: unknown }) => new AirlockError(code, render(details), details, options);
  return Object.assign(factory, { code, render });
}

/** Where a tool came from, as the registry records it. */
export interface ToolOrigin {
  readonly source: string;
  readonly origin?: string | undefined;
}

/** `extension "@acme/fs"`, `builtin`, `sdk "agent.ts"`. */
export function describeOrigin({ source, origin }: ToolOrigin): string {
  return origin ? `${source} "${origin}"` : source;
}

function quoteList(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

function closeTools(candidates: readonly string[]): string {
  return didYouMean(candidates) || 'No registered tool has a similar name.';
}

// ─── Tool registry ──────────────────────────────────────────────────────────────────────────

export interface ToolInvalidDefinitionDetails {
  /** The tool's name, or a placeholder when the name itself is missing. */
  readonly tool: string;
  readonly source: string;
  readonly origin?: string | undefined;
  /** Every problem found, one sentence each; never empty. */
  readonly problems: readonly string[];
}

export interface ToolDuplicateDetails {
  readonly tool: string;
  /** The tool already registered under this name. */
  readonly existing: ToolOrigin;
  /** The tool whose registration was refused. */
  readonly incoming: ToolOrigin;
}

const registryErrors = {
  AIRLOCK_TOOL_INVALID_DEFINITION: define(
    'AIRLOCK_TOOL_INVALID_DEFINITION',
    {
      severity: 'error',
      message: 'Tool "{tool}" from {source} was not registered: its definition has {n} problems (each listed).',
      action: "Fix the tool's definition (name, label, description, parameters schema, execute) in the code that registers it, and load it again.",
    },
    (d: ToolInvalidDefinitionDetails) => {
      const count = d.problems.length === 1 ? '1 problem' : `${d.problems.length} problems`;
      return (
        `Tool "${d.tool}" from ${describeOrigin(d)} was not registered: its definition has ${count}:\n` +
        d.problems.map((p) => `  - ${p}`).join('\n') +
        `\nFix the definition in ${d.origin ?? `the ${d.source} code`} and load it again.`
      );
    },
  ),

  AIRLOCK_TOOL_DUPLICATE: define(
    'AIRLOCK_TOOL_DUPLICATE',
    {
      severity: 'error',
      message: 'Tool "{tool}" is defined twice: by {existing} (registered first) and by {incoming}.',
      action: 'Remove or rename one of the two tools, or set `override: true` on the one that should win.',
    },
    (d: ToolDuplicateDetails) => {
      const first = describeOrigin(d.existing);
      const second = describeOrigin(d.incoming);
      return (
        `Tool "${d.tool}" is defined twice: by ${first} (registered first) and by ${second}. ` +
        'The model calls tools by name, so two tools cannot share one. ' +
        `Fix: remove or rename one of them, or set \`override: true\` on the one that should win ` +
        `(on the tool from ${second} to replace the one from ${first}).`
      );
    },
  ),
} as const;

// ─── Tool selection (the enabled set) ───────────────────────────────────────────────────────

export interface SelectionUnknownToolDetails {
  /** The name as given. */
  readonly name: string;
  /** The selection option that mentioned it. */
  readonly option: 'tools' | 'excludeTools';
  /** Registered names close to `name`, best first. */
  readonly candidates: readonly string[];
}

const selectionErrors = {
  AIRLOCK_SELECTION_UNKNOWN_TOOL: define(
    'AIRLOCK_SELECTION_UNKNOWN_TOOL',
    {
      severity: 'warning',
      message: 'Tool "{name}" in `tools` or `excludeTools` matches no registered tool (with the closest names).',
      action: 'Correct the name, or load the extension that provides the tool.',
    },
    (d: SelectionUnknownToolDetails) => {
      const effect =
        d.option === 'tools'
          ? 'so the allowlist enables nothing for it'
          : 'so excluding it has no effect';
      return (
        `Tool "${d.name}" in \`${d.option}\` matches no registered tool, ${effect}. ` +
        `${closeTools(d.candidates)} ` +
        'Fix: correct the name, or load the extension that provides the tool.'
      );
    },
  ),
} as const;

// ─── Provider tool schemas ──────────────────────────────────────────────────────────────────

export interface ProviderToolNameDetails {
  readonly provider: string;
  /** The name as the provider would see it. */
  readonly providerName: string;
  /** The Airlock tool names involved (two or more for a collision). */
  readonly tools: readonly string[];
  readonly problem: 'collision' | 'too_long';
}

const providerErrors = {
  AIRLOCK_PROVIDER_TOOL_NAME: define(
    'AIRLOCK_PROVIDER_TOOL_NAME',
    {
      severity: 'error',
      message: 'Tools {tools} all become "{providerName}" for {provider}, or a tool\'s name is longer than {provider} accepts.',
      action: 'Rename one of the tools, or leave one out of the enabled set (`excludeTools`).',
    },
    (d: ProviderToolNameDetails) =>
      d.problem === 'collision'
        ? `Tools ${quoteList(d.tools)} all become "${d.providerName}" for ${d.provider}, whose tool names ` +
          'allow fewer characters than Airlock names, so the model could not tell them apart. ' +
          'Fix: rename one of them, or leave one out of the enabled set (`excludeTools`).'
        : `Tool "${d.tools[0] ?? ''}" becomes "${d.providerName}" for ${d.provider}, which is longer than ` +
          `the 64 characters ${d.provider} accepts. Fix: give the tool a shorter name.`,
  ),
} as const;

// ─── Hook bus ───────────────────────────────────────────────────────────────────────────────

export interface HookUnknownDetails {
  readonly hook: string;
}

export interface HookOptionsDetails {
  readonly hook: string;
  readonly name: string;
  readonly problem: string;
}

export interface HookPhaseUnknownDetails {
  readonly hook: string;
  readonly name: string;
  readonly phase: string;
  readonly phases: readonly string[];
}

export interface HookDuplicateNameDetails {
  readonly hook: string;
  readonly name: string;
}

const hookErrors = {
  AIRLOCK_HOOK_UNKNOWN: define(
    'AIRLOCK_HOOK_UNKNOWN',
    {
      severity: 'error',
      message: 'There is no hook "{hook}" (there are tool_call and tool_result).',
      action: 'Register the handler on tool_call or tool_result.',
    },
    (d: HookUnknownDetails) =>
      `There is no hook "${d.hook}". Handlers can be added to tool_call, tool_result. Fix: use one of those names.`,
  ),

  AIRLOCK_HOOK_OPTIONS: define(
    'AIRLOCK_HOOK_OPTIONS',
    {
      severity: 'error',
      message: 'The {hook} handler "{name}" was not added: {problem}.',
      action: 'Fix the call: on(hook, handler, { name: "extension/purpose", phase, failure?, timeoutMs? }).',
    },
    (d: HookOptionsDetails) =>
      `The ${d.hook} handler "${d.name}" was not added: ${d.problem}. ` +
      'Fix the call: on(hook, handler, { name: "extension/purpose", phase, failure?: "open" | "closed", timeoutMs? }).',
  ),

  AIRLOCK_HOOK_PHASE_UNKNOWN: define(
    'AIRLOCK_HOOK_PHASE_UNKNOWN',
    {
      severity: 'error',
      message: 'The {hook} handler "{name}" asks for phase "{phase}", which {hook} does not have (its phases are listed).',
      action: 'Pick the phase that matches what the handler does (docs/hooks.md).',
    },
    (d: HookPhaseUnknownDetails) =>
      `The ${d.hook} handler "${d.name}" asks for phase "${d.phase}", which ${d.hook} does not have. ` +
      `Its phases, in run order: ${d.phases.join(', ')}. Fix: pick the phase that matches what the handler does.`,
  ),

  AIRLOCK_HOOK_DUPLICATE_NAME: define(
    'AIRLOCK_HOOK_DUPLICATE_NAME',
    {
      severity: 'error',
      message: 'A {hook} handler named "{name}" is already registered.',
      action: 'Give each handler its own name (extension/purpose), or remove the first before adding it again.',
    },
    (d: HookDuplicateNameDetails) =>
      `A ${d.hook} handler named "${d.name}" is already registered, and decisions and provenance name handlers, ` +
      'so two cannot share a name. Fix: give each handler its own name (extension/purpose), or remove the first one ' +
      'before adding it again (an extension loaded twice?).',
  ),
} as const;

/**
 * Every kernel diagnostic, by code.
 *
 * @example
 * throw AirlockErrors.AIRLOCK_TOOL_DUPLICATE({ tool: 'read', existing, incoming });
 */
export const AirlockErrors = {
  ...registryErrors,
  ...selectionErrors,
  ...providerErrors,
  ...hookErrors,
} as const;

export type AirlockErrorCode = keyof typeof AirlockErrors;

/** The `details` type of one code. */
export type AirlockErrorDetailsOf<C extends AirlockErrorCode> = Parameters<(typeof AirlockErrors)[C]>[0];

/**
 * Build the error for `code`, for callers that pick the code at run time.
 *
 * @example
 * throw kernelError('AIRLOCK_SELECTION_UNKNOWN_TOOL', { name: 'raed', option: 'tools', candidates: ['read'] });
 */
export function kernelError<C extends AirlockErrorCode>(
  code: C,
  details: AirlockErrorDetailsOf<C>,
  options?: { cause?: unknown },
): AirlockError<C, AirlockErrorDetailsOf<C>> {
  const factory = AirlockErrors[code] as unknown as ErrorFactory<C, AirlockErrorDetailsOf<C>>;
  return factory(details, options);
}

/**
 * Is `e` an Airlock error (optionally with this `code`)? Works across duplicate copies of the kernel.
 *
 * @example
 * if (isAirlockError(e, 'AIRLOCK_TOOL_DUPLICATE')) console.error(e.details.existing.source);
 */
export function isAirlockError<C extends AirlockErrorCode>(
  e: unknown,
  code: C,
): e is AirlockError<C, AirlockErrorDetailsOf<C>>;
export function isAirlockError(e: unknown): e is AirlockError;
export function isAirlockError(e: unknown, code?: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const branded = e instanceof AirlockError || (e as Record<symbol, unknown>)[BRAND] === true;
  if (!branded) return false;
  return code === undefined || (e as { code?: unknown }).code === code;
}

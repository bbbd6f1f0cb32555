import type { Severity } from '@airlock/contract';

/**
 * The error catalogue: every coded error and diagnostic that the kernel, the host, the CLI and
 * extensions raise, one entry per code, with who raises it, what its message says and what the
 * person reading it should do. Each module that raises codes registers them when it loads
 * (`registerErrorCodes`), next to the factories that build the messages; docs/errors.md is
 * generated from here (`pnpm --filter @airlock/cli docs:errors`), and a test fails when a code
 * raised in source is missing or the page is stale.
 *
 * Codes are stable API and never reused; the wording of messages may change.
 */

/** What the catalogue says about one code. */
export interface ErrorCodeEntry {
  readonly code: string;
  /** Who raises it: `kernel`, `host (settings)` and the like, `cli`, or an extension's package name. */
  readonly raisedBy: string;
  readonly severity: Severity;
  /** What the message says, with the variable parts in braces: `Tool "{tool}" is defined twice …`. */
  readonly message: string;
  /** What the person who sees it should do. */
  readonly action: string;
}

/** An entry as a module declares it; `raisedBy` is given once for the module. */
export type ErrorCodeSpec = Omit<ErrorCodeEntry, 'code' | 'raisedBy'>;

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;
const entries = new Map<string, ErrorCodeEntry>();

/**
 * Add codes to the catalogue. Registering the same entry again (a module loaded twice) is a no-op;
 * a code that another entry already uses is refused, because codes are never shared or reused.
 *
 * @example
 * registerErrorCodes('@acme/guard', {
 *   ACME_GUARD_RULES_INVALID: { severity: 'error', message: 'A rule in {file} does not parse: {reason}', action: 'Fix the rule.' },
 * });
 */
export function registerErrorCodes(raisedBy: string, specs: Readonly<Record<string, ErrorCodeSpec>>): void {
  for (const [code, spec] of Object.entries(specs)) {
    if (!CODE.test(code)) throw new Error(`Error code "${code}" (from ${raisedBy}) is not SCREAMING_SNAKE_CASE with a prefix, e.g. "ACME_RULE_INVALID". Rename it.`);
    for (const field of ['message', 'action'] as const) {
      if (typeof spec[field] !== 'string' || spec[field].trim() === '') {
        throw new Error(`Error code "${code}" (from ${raisedBy}) has no ${field}. Say ${field === 'message' ? 'what the message says' : 'what the reader should do'}.`);
      }
    }
    const entry: ErrorCodeEntry = Object.freeze({ code, raisedBy, severity: spec.severity, message: spec.message, action: spec.action });
    const existing = entries.get(code);
    if (existing !== undefined && !sameEntry(existing, entry)) {
      throw new Error(`Error code "${code}" is registered twice: by ${existing.raisedBy} and by ${raisedBy}. Codes are never shared; pick another code.`);
    }
    entries.set(code, entry);
  }
}

function sameEntry(a: ErrorCodeEntry, b: ErrorCodeEntry): boolean {
  return a.raisedBy === b.raisedBy && a.severity === b.severity && a.message === b.message && a.action === b.action;
}

/**
 * Every registered code, sorted by code.
 *
 * @example
 * errorCodes().find((e) => e.code === 'AIRLOCK_TOOL_DUPLICATE')?.action;
 */
export function errorCodes(): readonly ErrorCodeEntry[] {
  return [...entries.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/** The catalogue's entry for `code`, or undefined when no loaded module registered it. */
export function errorCode(code: string): ErrorCodeEntry | undefined {
  return entries.get(code);
}

/**
 * The body of docs/errors.md: one section per code, grouped by who raises it.
 *
 * @example
 * writeFileSync('docs/errors.md', renderErrorCatalogue(errorCodes()));
 */
export function renderErrorCatalogue(list: readonly ErrorCodeEntry[]): string {
  const groups = new Map<string, ErrorCodeEntry[]>();
  for (const e of list) groups.set(e.raisedBy, [...(groups.get(e.raisedBy) ?? []), e]);
  const order = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const out: string[] = [
    '# Error codes',
    '',
    '<!-- Generated from the error catalogue (packages/toolkit/src/error-catalogue.ts and the modules that register codes)',
    '     by packages/cli/scripts/error-doc.mjs: run `pnpm --filter @airlock/cli docs:errors`. Do not edit. -->',
    '',
    'Every coded error and diagnostic Airlock raises. Programs match on the code (it never changes);',
    'the message is for people and may be reworded. Braces mark the parts a message fills in.',
    'Extensions add their own codes with `registerErrorCodes` from `@airlock/toolkit/util`.',
    '',
    ...order.map((who) => `- [${who}](#${anchor(who)}): ${groups.get(who)!.length} codes`),
  ];
  for (const who of order) {
    out.push('', `## ${who}`, '');
    for (const e of groups.get(who)!) {
      out.push(`### \`${e.code}\``, '', `**${e.severity}**: ${e.message}`, '', `What to do: ${e.action}`, '');
    }
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

/** The kernel first, then the host and the CLI (`host (settings)` counts as the host), then extensions. */
function rank(raisedBy: string): number {
  const i = ['kernel', 'host', 'cli'].indexOf(raisedBy.split(' ')[0]!);
  return i < 0 ? 3 : i;
}

function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
}

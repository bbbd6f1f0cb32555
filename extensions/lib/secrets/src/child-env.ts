import { LinearRegExp } from '@airlock/toolkit/util';
import { looksSecretName } from './names.js';
import { createSecretScanner } from './scanner.js';

/**
 * The environment a child process sees (bash's commands, command hooks: one scrub for every
 * process Airlock starts, so what one withholds the other does too). Secrets stay out unless settings allow them by name:
 *
 * 1. a name matching a `deny` pattern is dropped (deny wins);
 * 2. a name matching an `allow` pattern is kept;
 * 3. a name that looks secret (see `looksSecret`) is dropped;
 * 4. a value the secret detectors recognise (a token format, a URL with a password, a private
 *    key) is dropped, whatever its name (`CELERY_BROKER_URL=amqp://u:pw@h`, `X=ghp_…`);
 * 5. everything else is kept.
 *
 * Patterns are exact names or globs (`*` any run, `?` one character), case-sensitive as Unix
 * environment names are.
 */
export interface EnvPolicy {
  allow: readonly string[];
  deny: readonly string[];
}

/**
 * Whether a variable's name suggests its value is a secret (case-insensitive). The rules live in
 * @airlock/secrets so that what bash withholds and what the redactor looks for never drift apart.
 */
export const looksSecret: (name: string) => boolean = looksSecretName;

/** One scanner for the process: it holds compiled rules only, no values. */
let valueScanner: ReturnType<typeof createSecretScanner> | undefined;

/**
 * Whether a value holds a secret by its shape alone: the shared detectors' token formats,
 * URLs with passwords and key blocks. No name context is given, so `KEY=value` rules stay out.
 */
export function looksSecretValue(value: string): boolean {
  valueScanner ??= createSecretScanner();
  return valueScanner.scan(value).length > 0;
}

/** Compile name patterns into one matcher. */
export function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const p of patterns) {
    if (/[*?]/.test(p)) {
      const body = p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
      // A settings glob with many `*` is many `.*`: matched in linear time, not by backtracking.
      globs.push(new LinearRegExp(`^${body}$`, 's'));
    } else exact.add(p);
  }
  return (name) => exact.has(name) || globs.some((g) => g.test(name));
}

/**
 * Filter `base` through the policy. Returns the kept environment and the names held back (for
 * the debug log, never their values).
 */
export function buildEnv(
  base: Readonly<Record<string, string | undefined>>,
  policy: EnvPolicy,
): { env: Record<string, string>; withheld: string[] } {
  const allowed = nameMatcher(policy.allow);
  const denied = nameMatcher(policy.deny);
  const env: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (denied(name) || (!allowed(name) && (looksSecret(name) || looksSecretValue(value)))) {
      withheld.push(name);
      continue;
    }
    env[name] = value;
  }
  return { env, withheld };
}

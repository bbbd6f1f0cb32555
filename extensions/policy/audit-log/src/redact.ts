import { createRedactor, createSecretScanner, loadFileSecrets, placeholderDigests, withFileSecrets } from '@airlock/secrets';

/**
 * The one place the audit log meets the shared secret scanner. Everything that goes into a record
 * and came from the model, a tool or a handler (arguments, provenance, reasons, content) passes
 * through here. One redactor per logger: the same secret gets the same placeholder
 * (`[REDACTED:github-token#1]`) in every record of a session, so records stay comparable.
 */
export interface AuditRedactor {
  value<T>(value: T): T;
  text(text: string): string;
  /**
   * Beside every placeholder this redactor wrote into `value`, the SHA-256 of what it replaced,
   * so an auditor can confirm what ran without the log holding it.
   */
  digests(value: unknown): Record<string, string>;
}

/**
 * `secretFiles`: where the user's secret files are (home and the project folder); their values are
 * redacted by value too, loaded on the first record (see @airlock/secrets' loadFileSecrets).
 */
export function createAuditRedactor(options: {
  env: Readonly<Record<string, string | undefined>>;
  allow: readonly string[];
  secretFiles?: { home?: string; workspace?: string };
}): AuditRedactor {
  const base = createSecretScanner({ env: options.env, allow: options.allow });
  const files = options.secretFiles;
  const redactor = createRedactor(files === undefined ? base : withFileSecrets(base, () => loadFileSecrets(files), options.allow));
  return {
    value: (v) => redactor.value(v),
    text: (t) => redactor.text(t),
    // A placeholder this redactor did not write has no digest: until it writes one, there is nothing to look for.
    digests: (v) => (redactor.count === 0 ? {} : placeholderDigests(v, redactor.digestOf)),
  };
}

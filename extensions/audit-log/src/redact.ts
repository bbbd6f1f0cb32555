import { createRedactor, createSecretScanner, placeholderDigests } from '@airlock/secrets';

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

export function createAuditRedactor(options: { env: Readonly<Record<string, string | undefined>>; allow: readonly string[] }): AuditRedactor {
  const redactor = createRedactor(createSecretScanner({ env: options.env, allow: options.allow }));
  return { value: (v) => redactor.value(v), text: (t) => redactor.text(t), digests: (v) => placeholderDigests(v, redactor.digestOf) };
}

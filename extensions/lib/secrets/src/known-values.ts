import type { FileSecret } from './file-values.js';
import { allowFilter, type SecretFinding, type SecretScanner } from './scanner.js';

/**
 * A scanner that also finds the exact values `load` returns (the user's secret files' values),
 * loaded on the first scan and kept in memory for the scanner's life (one session). Such a value
 * wins over any other finding it overlaps: it is known to be that secret, whatever its shape.
 * Rule ids are `file:<where>:<key>`, e.g. `[REDACTED:file:~/.aws/credentials:aws_secret_access_key#1]`.
 * A load that throws fails the scan (the redact phase then withholds the content): no silent gap.
 *
 * @example createRedactor(withFileSecrets(createSecretScanner(), () => loadFileSecrets({ home, workspace })))
 */
export function withFileSecrets(base: SecretScanner, load: () => readonly FileSecret[], allow: readonly (string | RegExp)[] = []): SecretScanner {
  let values: readonly FileSecret[] | undefined;
  const allowed = allow.length > 0 ? allowFilter(allow) : () => false;
  return {
    scan(text) {
      values ??= load().filter((v) => !allowed(v.value));
      const known: SecretFinding[] = [];
      for (const { name, value } of values) {
        for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + value.length)) {
          // Longest values come first: a shorter one inside an already found one is part of it.
          if (!known.some((k) => i < k.end && k.start < i + value.length)) known.push({ ruleId: `file:${name}`, start: i, end: i + value.length });
        }
      }
      const found = base.scan(text);
      if (known.length === 0) return found;
      const rest = found.filter((f) => !known.some((k) => f.start < k.end && k.start < f.end));
      return [...known, ...rest].sort((a, b) => a.start - b.start);
    },
  };
}

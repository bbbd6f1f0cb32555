/**
 * @airlock/secrets — find secrets in text and replace them with stable placeholders. Shared by
 * the redact-secrets extension (tool results), the audit log (arguments and results on disk)
 * and the bash tool (which variables a command may see).
 */
export { createSecretScanner, type SecretFinding, type SecretScanner, type SecretScannerOptions } from './scanner.js';
export { createRedactor, type Redactor } from './redactor.js';
export { looksSecretName } from './names.js';
export { shannonEntropy } from './entropy.js';
export { ENTROPY_THRESHOLD, LETTERS_ENTROPY_THRESHOLD, plausibleSecretValue } from './assignments.js';
export { FORMAT_RULES, SCAN_RULES } from './formats.js';
export { placeholderCounts, placeholderDigests, secretDigest } from './digest.js';
export { FILE_VALUE_LIMITS, HOME_SECRET_FILES, loadFileSecrets, secretFileCandidates, valuesIn, type FileSecret } from './file-values.js';
export { withFileSecrets } from './known-values.js';
export { buildEnv, looksSecret, looksSecretValue, nameMatcher, type EnvPolicy } from './child-env.js';

import type { Extension } from '@airlock/kernel';
import { createRedactor, createSecretScanner } from '@airlock/secrets';
import { redactHandler } from './handler.js';
import { parseAllow, RedactOptions } from './options.js';

/**
 * Redacts secrets in every tool result before anyone else sees them. One redactor per setup,
 * and the host runs setup once per kernel session, so `[REDACTED:github-token#1]` means the same
 * token for the whole session.
 *
 * The environment comes from `process.env`: ExtensionAPI offers settings, cwd, ui and log but no
 * environment (tools get `ctx.env`, which is the scrubbed one bash passes on — the secrets are
 * exactly what it leaves out). The host process's own environment is where the secrets a
 * command could print come from.
 */
const extension = {
  name: 'redact-secrets',
  options: RedactOptions,
  setup(api, options) {
    const scanner = createSecretScanner({
      allow: parseAllow(options.allow),
      ...(options.envFrom === 'process' ? { env: process.env } : {}),
    });
    api.on('tool_result', redactHandler(createRedactor(scanner)), { name: 'secrets', phase: 'redact' });
  },
} satisfies Extension<typeof RedactOptions>;

export default extension;
export { redactHandler } from './handler.js';
export { parseAllow, RedactOptions } from './options.js';

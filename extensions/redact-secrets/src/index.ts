import type { Extension } from '@airlock/kernel';
import { createRedactor, createSecretScanner } from '@airlock/secrets';
import { redactHandler } from './handler.js';
import { parseAllow, RedactOptions } from './options.js';

/**
 * Redacts secrets in every tool result before anyone else sees them. One redactor per setup,
 * and the host runs setup once per kernel session, so `[REDACTED:github-token#1]` means the same
 * token for the whole session.
 *
 * The environment is the host's (`api.env`, the same one tools see as `ctx.env` before bash
 * scrubs it for its commands): that is where the secrets a command could print come from.
 */
const extension = {
  name: 'redact-secrets',
  options: RedactOptions,
  setup(api, options) {
    const scanner = createSecretScanner({
      allow: parseAllow(options.allow),
      ...(options.envFrom === 'process' ? { env: api.env } : {}),
    });
    api.on('tool_result', redactHandler(createRedactor(scanner)), { name: 'secrets', phase: 'redact' });
  },
} satisfies Extension<typeof RedactOptions>;

export default extension;
export { redactHandler, REDACTIONS_KEY } from './handler.js';
export { parseAllow, RedactOptions } from './options.js';

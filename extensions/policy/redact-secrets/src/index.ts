import type { Extension } from '@airlock/contract';
import { homedir } from 'node:os';
import { createRedactor, createSecretScanner, loadFileSecrets, withFileSecrets } from '@airlock/secrets';
import { redactHandler } from './handler.js';
import { parseAllow, RedactOptions } from './options.js';

/**
 * Redacts secrets in every tool result before anyone else sees them, and gives the host the same
 * text redactor for what it writes beside the pipeline (session transcripts). One redactor per setup,
 * and the host runs setup once per kernel session, so `[REDACTED:github-token#1]` means the same
 * token for the whole session.
 *
 * The environment is the host's (`api.env`, the same one tools see as `ctx.env` before bash
 * scrubs it for its commands): that is where the secrets a command could print come from.
 * The values of the user's secret files (`secretFiles: 'load'`) are redacted too, by value.
 */
const extension = {
  name: 'redact-secrets',
  options: RedactOptions,
  setup(api, options) {
    const allow = parseAllow(options.allow);
    const base = createSecretScanner({ allow, ...(options.envFrom === 'process' ? { env: api.env } : {}) });
    // The second line of defence behind the policy's secret-file rules: a value from the user's
    // secret files is redacted wherever it shows up (a commit of a deleted .env, a log).
    const home = api.env.HOME || homedir();
    const scanner = options.secretFiles === 'load' ? withFileSecrets(base, () => loadFileSecrets({ home, workspace: api.cwd }), allow) : base;
    // One redactor for results and for transcripts: a token is the same placeholder in both.
    const redactor = createRedactor(scanner);
    api.on('tool_result', redactHandler(redactor), { name: 'secrets', phase: 'redact' });
    api.registerRedactor?.((text) => redactor.text(text), { name: 'secrets' });
  },
} satisfies Extension<typeof RedactOptions>;

export default extension;
export { redactHandler, REDACTIONS_KEY } from './handler.js';
export { parseAllow, RedactOptions } from './options.js';

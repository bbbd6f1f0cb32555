import { buildEnv } from '@airlock/secrets';

/**
 * The environment a hook runs with: the host's, scrubbed exactly as bash scrubs a command's
 * (secret-looking names and values withheld), without `OTEL_*` (Claude Code removes them too),
 * plus `CLAUDE_PROJECT_DIR`, which scripts written for Claude Code use to find their files.
 *
 * @example hookEnv({ PATH: '/bin', GITHUB_TOKEN: 'ghp_…' }, '/work') // { PATH: '/bin', CLAUDE_PROJECT_DIR: '/work' }
 */
export function hookEnv(base: Readonly<Record<string, string | undefined>>, projectDir: string): Record<string, string> {
  const { env } = buildEnv(base, { allow: [], deny: ['OTEL_*'] });
  return { ...env, CLAUDE_PROJECT_DIR: projectDir };
}

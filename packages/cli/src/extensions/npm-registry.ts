import { runPackageManager } from './package-manager.js';

/** npm's own default: what `npm config get registry` says when nothing is configured. */
export const NPM_DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** A registry address and where it came from, so a message can say which setting to change. */
export interface RegistryChoice {
  /** Always ends in `/`, so `new URL('-/v1/search', url)` keeps a registry's path (Artifactory's /api/npm/x/). */
  url: string;
  from: string;
}

/**
 * The npm registry a person's npm would use for `scope` (`@acme`) or for unscoped packages: the
 * `npm_config_<scope>:registry` / `npm_config_registry` environment variables first (npm reads
 * them too, and they cost no process), then `npm config get` run in `cwd` with the person's
 * environment (so the project's and the user's .npmrc count). Errors are values: an npm that
 * cannot run falls back to npm's default registry and says so in `from`.
 *
 * @example
 * await configuredRegistry({ npm_config_registry: 'http://127.0.0.1:4873' }, '/p') // { url: 'http://127.0.0.1:4873/', from: 'npm_config_registry' }
 */
export async function configuredRegistry(env: NodeJS.ProcessEnv, cwd: string, scope?: string): Promise<RegistryChoice> {
  const keys = [...(scope === undefined ? [] : [`${scope}:registry`]), 'registry'];
  for (const key of keys) {
    const name = Object.keys(env).find((k) => k.toLowerCase() === `npm_config_${key}`.toLowerCase());
    const value = name === undefined ? undefined : env[name];
    if (value !== undefined && isHttpUrl(value)) return { url: withSlash(value), from: name! };
  }
  // One process for both keys: npm prints one value a line, in order ("undefined" for an unset scope).
  const run = await runPackageManager('npm', ['config', 'get', ...keys], cwd, { ...env, npm_config_update_notifier: 'false' });
  if (run.code === 0) {
    // Warnings share the output (runPackageManager merges the streams): keep the lines that are addresses.
    const lines = run.output.split('\n').map((l) => l.trim().replace(/^@?[\w.-]*:?registry\s*=\s*/, ''));
    const found = lines.find((l) => isHttpUrl(l));
    if (found !== undefined) return { url: withSlash(found), from: 'npm config' };
  }
  return { url: NPM_DEFAULT_REGISTRY, from: `npm's default (\`npm config get registry\` did not answer: ${run.output.trim().split('\n').at(-1) ?? `exit ${run.code}`})` };
}

/** `@acme/guard` or `@acme` → `@acme`; anything else → undefined. */
export function scopeOf(word: string): string | undefined {
  return /^(@[a-z0-9][\w.-]*)(\/|$)/i.exec(word)?.[1];
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

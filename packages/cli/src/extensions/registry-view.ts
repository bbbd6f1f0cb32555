import { POLICY_PHASES } from '@airlock/host';
import { runPackageManager } from './package-manager.js';
import type { PackageKind } from './package-facts.js';

/** What the registry says about a package that is not installed: its latest (or named) release's manifest. */
export interface RegistryView {
  name: string;
  version: string;
  description?: string;
  kind: PackageKind | 'not an extension';
  kernel?: string;
  tools: string[];
  hooks: string[];
  commands: string[];
  uses: string[];
  /** Where npm would fetch it from. */
  tarball?: string;
}

/**
 * Ask the configured registry about `spec` with `npm view` (so its registry, scopes and tokens
 * are the person's own npm config) without downloading or running anything of the package.
 * `undefined` with npm's words when it has no such package or cannot reach the registry.
 *
 * @example await viewOnRegistry('@acme/guard', '/p', process.env) // { ok: true, view: { name: '@acme/guard', version: '1.2.0', kind: 'policy', … } }
 */
export async function viewOnRegistry(spec: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ ok: true; view: RegistryView } | { ok: false; output: string }> {
  // A lookup answers at once or says why: npm's default retries wait about a minute on a registry that is down.
  const run = await runPackageManager('npm', ['view', spec, '--json', '--fetch-retries=0'], cwd, env);
  if (run.code !== 0) return { ok: false, output: run.output };
  let data: unknown;
  try {
    data = JSON.parse(run.output);
  } catch {
    return { ok: false, output: run.output };
  }
  // A range matching several releases gives a list: the last is the newest.
  const doc = (Array.isArray(data) ? data.at(-1) : data) as Record<string, unknown> | undefined;
  if (doc === undefined || typeof doc.name !== 'string' || typeof doc.version !== 'string') return { ok: false, output: run.output };
  const airlock = (typeof doc.airlock === 'object' && doc.airlock !== null ? doc.airlock : undefined) as
    | { kernel?: unknown; provides?: { tools?: unknown; hooks?: unknown }; commands?: unknown; uses?: unknown; rules?: unknown; settings?: unknown }
    | undefined;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  const hooks = strings(airlock?.provides?.hooks);
  const tools = strings(airlock?.provides?.tools);
  const kind: RegistryView['kind'] =
    airlock === undefined ? 'not an extension' : hooks.some((h) => POLICY_PHASES.includes(h)) || airlock.rules !== undefined ? 'policy' : tools.length > 0 ? 'tool' : 'library';
  const dist = doc.dist as { tarball?: unknown } | undefined;
  return {
    ok: true,
    view: {
      name: doc.name,
      version: doc.version,
      ...(typeof doc.description === 'string' ? { description: doc.description } : {}),
      kind,
      ...(typeof airlock?.kernel === 'string' ? { kernel: airlock.kernel } : {}),
      tools,
      hooks,
      commands: Array.isArray(airlock?.commands) ? airlock.commands.map((c: { name?: unknown }) => c?.name).filter((n): n is string => typeof n === 'string') : [],
      uses: strings(airlock?.uses),
      ...(typeof dist?.tarball === 'string' ? { tarball: dist.tarball } : {}),
    },
  };
}

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openHost as openHostWith, type BundledExtensions, type Host, type OpenHostOptions } from '@airlock/host';

/**
 * The host's `openHost`, with Airlock's default extensions compiled into one file
 * (dist/builtins.mjs, written by scripts/bundle-builtins.mjs at build), as the CLI has them:
 * loaded module by module, they were most of what opening a host cost a program.
 * Options that bring their own `bundled` are passed on as they are.
 *
 * @example
 * const host = await openHost({ cwd: process.cwd(), interactive: false });
 * await host.execute({ id: 'c1', name: 'read', arguments: { path: 'README.md' } });
 */
export async function openHost(options: OpenHostOptions): Promise<Host> {
  if (options.bundled !== undefined) return openHostWith(options);
  const bundled = await loadBuiltins();
  return openHostWith(bundled === undefined ? options : { ...options, bundled });
}

const BUILTINS = new URL('./builtins.mjs', import.meta.url);
let builtins: Promise<BundledExtensions | undefined> | undefined;

/**
 * Once per process, shared by every host. Not there when the SDK runs from its sources (tests),
 * where the host loads the extensions' TypeScript itself; any other failure is the import's.
 */
function loadBuiltins(): Promise<BundledExtensions | undefined> {
  builtins ??= existsSync(fileURLToPath(BUILTINS))
    ? (import(BUILTINS.href) as Promise<{ bundled: BundledExtensions }>).then(
        (mod) => mod.bundled,
        (error: unknown) => {
          builtins = undefined;
          throw error;
        },
      )
    : Promise.resolve(undefined);
  return builtins;
}

/**
 * What an `extensions` entry names: a package or a path. One rule for both the string and the
 * object form, so `"./tools/x.ts"` and `{ path: "./tools/x.ts" }` mean the same thing.
 */
import { isAbsolute, join, normalize, resolve, win32 } from 'node:path';
import type { ExtensionSpec } from './schema.js';

export type ExtensionKind = 'package' | 'path';

/** An entry with its form ironed out: string or object, it reads the same. */
export interface ParsedExtensionSpec {
  kind: ExtensionKind;
  /** The package name or the path, as written. */
  spec: string;
  options: Record<string, unknown>;
  enabled: boolean;
}

/**
 * Node's rule for a specifier that is a path (`./`, `../`, `/`, absolute), plus `~/` for the
 * home folder. Anything else (`foo`, `@scope/foo`, `foo/sub`) is a package name.
 *
 * @example isPathSpec('./x.ts') // true;  isPathSpec('@acme/tool') // false
 */
export function isPathSpec(spec: string): boolean {
  return (
    spec === '.' ||
    spec === '..' ||
    /^\.{1,2}[\\/]/.test(spec) ||
    spec.startsWith('~/') ||
    isAbsolute(spec) ||
    win32.isAbsolute(spec)
  );
}

/**
 * @example
 * parseExtensionSpec('@acme/jira')                         // { kind: 'package', spec: '@acme/jira', options: {}, enabled: true }
 * parseExtensionSpec({ path: './x.ts', options: { a: 1 } }) // { kind: 'path', spec: './x.ts', options: { a: 1 }, enabled: true }
 */
export function parseExtensionSpec(entry: ExtensionSpec): ParsedExtensionSpec {
  if (typeof entry === 'string') {
    return { kind: isPathSpec(entry) ? 'path' : 'package', spec: entry, options: {}, enabled: true };
  }
  const options = structuredClone(entry.options ?? {});
  const enabled = entry.enabled ?? true;
  // The object form says which one it is; `path: "tools/x.ts"` is a path even without `./`.
  if ('path' in entry) return { kind: 'path', spec: entry.path, options, enabled };
  return { kind: 'package', spec: entry.name, options, enabled };
}

/**
 * An absolute path for a path spec: `~/` is the home folder, anything relative is relative to
 * `baseDir` (the folder of the settings file that names it).
 *
 * @example resolveSpecPath('./x.ts', '/repo', '/home/u') // '/repo/x.ts'
 */
export function resolveSpecPath(spec: string, baseDir: string, homeDir: string): string {
  if (spec === '~' || spec.startsWith('~/')) return join(homeDir, spec.slice(1));
  return resolve(baseDir, spec);
}

/** Two entries name the same extension when this key is equal (within one folder's point of view). */
export function specKey(parsed: Pick<ParsedExtensionSpec, 'kind' | 'spec'>, baseDir: string, homeDir: string): string {
  return parsed.kind === 'package' ? `package:${parsed.spec}` : `path:${normalize(resolveSpecPath(parsed.spec, baseDir, homeDir))}`;
}

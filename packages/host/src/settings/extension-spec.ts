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
  /** A failure to find or load it is reported, not blocking. */
  optional: boolean;
}

/** The string form that leaves an extension out: `"-@airlock/audit-log"`. */
const LEAVE_OUT = '-';

/**
 * Node's rule for a specifier that is a path (`./`, `../`, `/`, absolute, Windows forms too), plus
 * `~` and `~/` for the home folder. Anything else (`foo`, `@scope/foo`, `foo/sub`) is a package
 * name. The loader and settings both ask this one function.
 *
 * @example isPathSpec('./x.ts') // true;  isPathSpec('@acme/tool') // false
 */
export function isPathSpec(spec: string): boolean {
  return (
    spec === '.' ||
    spec === '..' ||
    /^\.{1,2}[\\/]/.test(spec) ||
    spec === '~' ||
    spec.startsWith('~/') ||
    isAbsolute(spec) ||
    win32.isAbsolute(spec)
  );
}

/**
 * @example
 * parseExtensionSpec('@acme/jira')                         // { kind: 'package', spec: '@acme/jira', options: {}, enabled: true, optional: false }
 * parseExtensionSpec('-@airlock/audit-log')                // { kind: 'package', spec: '@airlock/audit-log', options: {}, enabled: false, optional: false }
 * parseExtensionSpec({ path: './x.ts', options: { a: 1 } }) // { kind: 'path', spec: './x.ts', options: { a: 1 }, enabled: true, optional: false }
 */
export function parseExtensionSpec(entry: ExtensionSpec): ParsedExtensionSpec {
  if (typeof entry === 'string') {
    const leaveOut = entry.startsWith(LEAVE_OUT) && entry.length > LEAVE_OUT.length;
    const spec = leaveOut ? entry.slice(LEAVE_OUT.length) : entry;
    return { kind: isPathSpec(spec) ? 'path' : 'package', spec, options: {}, enabled: !leaveOut, optional: false };
  }
  const options = structuredClone(entry.options ?? {});
  const enabled = entry.enabled ?? true;
  const optional = entry.optional ?? false;
  // The object form says which one it is; `path: "tools/x.ts"` is a path even without `./`.
  if ('path' in entry) return { kind: 'path', spec: entry.path, options, enabled, optional };
  return { kind: 'package', spec: entry.name, options, enabled, optional };
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

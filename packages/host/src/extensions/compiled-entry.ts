import { readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, isAbsolute } from 'node:path';

/**
 * The JavaScript an Airlock package compiled its TypeScript entry to, as its own `exports` map
 * says: the entry that names `entryFile` under the `source` condition, and its `default` target.
 * In the workspace `pnpm build` writes it; an installed package carries it. Undefined when the
 * package declares no such twin or it was never built, so the caller can still load the source.
 *
 * @example
 * compiledEntry('/w/extensions/tools/bash', '/w/extensions/tools/bash/src/index.ts')
 * // '/w/extensions/tools/bash/dist/index.js' (after `pnpm build`)
 */
export function compiledEntry(packageDir: string, entryFile: string): string | undefined {
  let manifest: { exports?: unknown };
  try {
    manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { exports?: unknown };
  } catch {
    return undefined;
  }
  for (const target of conditionalEntries(manifest.exports)) {
    if (typeof target.source !== 'string' || typeof target.default !== 'string') continue;
    if (resolve(packageDir, target.source) !== entryFile || !/\.m?js$/.test(target.default)) continue;
    const compiled = resolve(packageDir, target.default);
    const inside = relative(packageDir, compiled);
    if (inside.startsWith('..') || isAbsolute(inside)) return undefined;
    return isFile(compiled) ? compiled : undefined;
  }
  return undefined;
}

/** Every `{ condition: target }` object of an exports map, whatever its subpath. */
function conditionalEntries(exports: unknown): Record<string, unknown>[] {
  if (exports === null || typeof exports !== 'object' || Array.isArray(exports)) return [];
  const entry = exports as Record<string, unknown>;
  return Object.keys(entry).some((key) => key.startsWith('.')) ? Object.values(entry).flatMap(conditionalEntries) : [entry];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

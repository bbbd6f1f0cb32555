import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * docs/concepts.md names, for each term, where it lives in code: identifiers, files and packages in
 * `code form`. This test fails when one of them is gone (renamed, deleted), so the glossary cannot
 * drift from the source silently.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GLOSSARY = join(ROOT, 'docs', 'concepts.md');

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, keep);
    return keep(name) ? [path] : [];
  });
}

const sourceRoots = ['packages', 'extensions'].map((d) => join(ROOT, d));
const allFiles = sourceRoots.flatMap((d) => files(d, () => true));
const source = allFiles
  .filter((f) => /\/src\/.*\.ts$/.test(f))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');
const packageNames = new Set(
  allFiles.filter((f) => f.endsWith('/package.json')).map((f) => (JSON.parse(readFileSync(f, 'utf8')) as { name?: string }).name),
);

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A declaration of `name`: a function, class, type, constant, or a member or key (`name(`, `name:`). */
function declared(name: string): boolean {
  const n = escape(name);
  return (
    new RegExp(`^\\s*(export\\s+)?(declare\\s+)?(default\\s+)?(async\\s+)?(function\\*?|class|interface|type|const|let|enum)\\s+${n}\\b`, 'm').test(source) ||
    new RegExp(`^\\s+(readonly\\s+|static\\s+|async\\s+|get\\s+)*['"]?${n}['"]?\\??\\s*[:(<]`, 'm').test(source)
  );
}

/** A string the code uses as a value: `'ok'`, `'tool_call:authorize'`. */
function literal(text: string): boolean {
  return new RegExp(`['"\`]${escape(text)}['"\`]`).test(source);
}

/** Where the glossary's code-form name `token` is, or undefined when it is not in the source. */
function findInSource(token: string): string | undefined {
  if (token.startsWith('@airlock/')) {
    const pkg = token.split('/').slice(0, 2).join('/');
    return packageNames.has(pkg) ? `package ${pkg}` : undefined;
  }
  if (token.includes('/') && !token.endsWith('/*') && existsSync(join(ROOT, token))) return token;
  if (/\.(ts|md|json)$/.test(token) || token.endsWith('/*')) {
    const path = token.replace(/\/\*$/, '');
    if (existsSync(join(ROOT, path))) return path;
    const name = path.split('/').at(-1)!;
    return allFiles.some((f) => f.endsWith(`/${path}`) || (!path.includes('/') && f.endsWith(`/${name}`))) ? path : undefined;
  }
  if (literal(token)) return 'a string in the source';
  const last = token.split('.').at(-1)!;
  if (/^[A-Za-z_$][\w$]*$/.test(last) && declared(last)) return 'a declaration';
  return undefined;
}

/** The code-form names of the glossary that should exist: identifiers, dotted names, files, packages. */
function codeNames(doc: string): string[] {
  const names = [...doc.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  // Patterns and call shapes (`bash(git push *)`, `{id, name, arguments}`) are examples, not names.
  return [...new Set(names.filter((n) => /^[@A-Za-z_$][\w$.:/*@-]*$/.test(n) && !n.includes('(')))];
}

describe('docs/concepts.md, the glossary', () => {
  const doc = readFileSync(GLOSSARY, 'utf8');

  it('defines the terms the architecture uses', () => {
    for (const term of ['call', 'batch', 'stage', 'phase', 'handler', 'vote', 'decision', 'effect', 'outcome', 'resource', 'rule', 'layer', 'extension', 'tool', 'policy extension', 'library', 'host', 'kernel', 'sandbox profile', 'spill file', 'error code', 'diagnostic']) {
      expect(doc, term).toMatch(new RegExp(`^- \\*\\*${term}\\*\\* — `, 'm'));
    }
  });

  it('names only identifiers, files and packages that exist in the source', () => {
    const names = codeNames(doc);
    expect(names.length).toBeGreaterThan(60);
    const missing = names.filter((n) => findInSource(n) === undefined);
    expect(missing).toEqual([]);
  });

  it('would notice a renamed identifier, a moved file and a missing package', () => {
    expect(findInSource('PHASES')).toBe('a declaration');
    expect(findInSource('PhaseRowz')).toBeUndefined();
    expect(findInSource('4-tool-call-hook.ts')).toBeDefined();
    expect(findInSource('packages/kernel/src/call/9-nothing.ts')).toBeUndefined();
    expect(findInSource('@airlock/tool-common')).toBeDefined();
    expect(findInSource('@airlock/tool-nothing')).toBeUndefined();
    expect(findInSource('extensions/nothing/*')).toBeUndefined();
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `airlock extensions new` fills into its templates (see templates/README.md). */
export interface ScaffoldWords {
  PACKAGE: string;
  EXTENSION: string;
  TOOL: string;
  KERNEL_RANGE: string;
  KERNEL_DEPENDENCY: string;
  TYPEBOX: string;
}

/** npm's rules for a package name, kept to what a folder and a tool name can be made from. */
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** The problem with a package name, in words, or undefined when npm would take it. */
export function packageNameProblem(name: string): string | undefined {
  if (name.length > 214) return 'it is longer than 214 characters';
  if (!PACKAGE_NAME.test(name)) return 'npm takes lowercase letters, digits, ".", "_" and "-", optionally after a scope ("@acme/")';
  return undefined;
}

/** `@acme/airlock-word-count` → extension `airlock-word-count`, tool `word_count`. */
export function namesOf(packageName: string): { extension: string; tool: string } {
  const extension = packageName.replace(/^@[^/]+\//, '');
  const tool = extension.replace(/^airlock-/, '').replace(/[.-]/g, '_') || 'tool';
  return { extension, tool };
}

/** The @airlock/cli package folder, found above this module (src/, dist/ or the bundle). */
export function cliPackageDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@airlock/cli') return dir;
    if (dirname(dir) === dir) throw new Error(`no @airlock/cli package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

/**
 * Copy `templates/common` and `templates/<kind>` into `target`, each `.tmpl` file's words filled
 * in; returns the files written, relative to `target`.
 *
 * @example await scaffold('tool', '/work/airlock-count', words) // ['.gitignore', 'README.md', 'package.json', …]
 */
export async function scaffold(kind: 'tool' | 'policy', target: string, words: ScaffoldWords): Promise<string[]> {
  const templates = join(cliPackageDir(), 'templates');
  const written: string[] = [];
  for (const part of ['common', kind]) {
    for (const file of filesUnder(join(templates, part))) {
      const rel = relative(join(templates, part), file).replace(/\.tmpl$/, '').replace(/(^|\/)gitignore$/, '$1.gitignore');
      const text = readFileSync(file, 'utf8').replace(/__([A-Z_]+?)__/g, (whole, word: string) => (word in words ? words[word as keyof ScaffoldWords] : whole));
      await mkdir(dirname(join(target, rel)), { recursive: true });
      await writeFile(join(target, rel), text, { flag: 'wx' });
      written.push(rel);
    }
  }
  return written.sort();
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.tmpl') ? [join(dir, e.name)] : []));
}

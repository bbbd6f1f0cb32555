import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { createExtensionJiti } from '@airlock/host';
import { describeManifest, describePackage, type ExtensionLoader, type PackageFacts } from './package-facts.js';
import type { OptionRow } from './option-rows.js';

/** One package of the catalog, with where it is: its folder relative to what was listed, a tarball's name, or a registry address. */
export interface CatalogEntry extends PackageFacts {
  dir: string;
}

/** Where a catalog's packages were read. */
export type CatalogSourceKind = 'workspace' | 'folder' | 'tarball' | 'registry';

/** What `airlock extensions catalog --json` prints; `renderCatalog` turns the same into docs/catalog.md. */
export interface Catalog {
  source: { kind: CatalogSourceKind; where: string };
  /** Each module was imported to read its options (trusted code); false: the manifests only. */
  optionsRead: boolean;
  packages: CatalogEntry[];
}

/** How packages are described: importing their modules (trusted) or not, with one loader for all. */
export interface DescribeOptions {
  trusted: boolean;
}

/**
 * The nearest folder at or above `from` holding pnpm-workspace.yaml: the workspace whose
 * manifests the catalog lists. Undefined outside a workspace.
 */
export function findWorkspaceRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Every package folder the workspace file's `packages:` globs name (`dir/*` and plain folders:
 * the forms Airlock's own uses), in the file's order, then by name.
 */
export function workspacePackageDirs(root: string): string[] {
  const text = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs: string[] = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inPackages = /^packages\s*:/.test(line);
    const item = inPackages ? /^\s+-\s+['"]?([^'"#\s]+)['"]?/.exec(line) : null;
    if (item?.[1] !== undefined) globs.push(item[1]);
  }
  const dirs: string[] = [];
  for (const glob of globs) {
    if (glob.startsWith('!')) continue;
    if (!glob.endsWith('/*')) {
      if (existsSync(join(root, glob, 'package.json'))) dirs.push(join(root, glob));
      continue;
    }
    const parent = join(root, glob.slice(0, -2));
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent).sort()) if (existsSync(join(parent, name, 'package.json'))) dirs.push(join(parent, name));
  }
  return dirs;
}

/**
 * The catalog of a workspace: every package under `extensions/` (its group folder, `tools`,
 * `policy` or `lib`, gives its kind), and any other published package whose package.json has an
 * `airlock` manifest. A package added under those folders appears without a code change.
 * Untrusted (`trusted: false`), the manifests only: no module is imported.
 *
 * @example const catalog = await buildCatalog('/src/airlock'); catalog.packages.map((p) => p.name)
 */
export async function buildCatalog(root: string, o: DescribeOptions = { trusted: true }): Promise<Catalog> {
  const found: { dir: string; rel: string; group?: string }[] = [];
  for (const dir of workspacePackageDirs(root)) {
    const rel = relative(root, dir).split(sep).join('/');
    const parts = rel.split('/');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { private?: boolean; airlock?: unknown };
    const underExtensions = parts[0] === 'extensions' && parts.length === 3;
    if (!underExtensions && (pkg.private === true || pkg.airlock === undefined)) continue;
    found.push({ dir, rel, ...(underExtensions ? { group: parts[1]! } : {}) });
  }
  return { source: { kind: 'workspace', where: root }, optionsRead: o.trusted, packages: sortByKind(await describeAll(found, o)) };
}

/**
 * The catalog of package folders found outside a workspace (`extensionFolders`: one package, a
 * folder of packages, a node_modules, an unpacked tarball). `where` names what was listed;
 * `label` gives each entry's `dir` (default: its folder relative to `base`).
 *
 * @example await catalogOfFolders(extensionFolders('/p/node_modules'), { kind: 'folder', where: '/p/node_modules' }, { trusted: false })
 */
export async function catalogOfFolders(dirs: readonly string[], source: Catalog['source'], o: DescribeOptions & { base?: string; label?: (dir: string) => string }): Promise<Catalog> {
  const label = o.label ?? ((dir: string) => relative(o.base ?? source.where, dir).split(sep).join('/') || '.');
  const packages = await describeAll(dirs.map((dir) => ({ dir, rel: label(dir) })), o);
  return { source, optionsRead: o.trusted, packages: sortByKind(packages) };
}

/**
 * Describe each folder. Trusted, modules are imported one after another through one loader:
 * jiti transpiles on the main thread, so importing in parallel gains nothing, while a loader per
 * package cost its set-up each time.
 */
async function describeAll(found: readonly { dir: string; rel: string; group?: string }[], o: DescribeOptions): Promise<CatalogEntry[]> {
  let loader: ExtensionLoader | undefined;
  const out: CatalogEntry[] = [];
  for (const f of found) {
    const group = f.group === undefined ? {} : { group: f.group };
    if (!o.trusted) {
      out.push({ ...describeManifest(f.dir, group), dir: f.rel });
      continue;
    }
    loader ??= await createExtensionJiti();
    out.push({ ...(await describePackage(f.dir, { ...group, loader })), dir: f.rel });
  }
  return out;
}

/** Tools, then policies, then libraries; by name within a kind. */
export function sortByKind<T extends PackageFacts>(packages: T[]): T[] {
  const order = { tool: 0, policy: 1, library: 2 } as const;
  return packages.sort((a, b) => order[a.kind] - order[b.kind] || a.name.localeCompare(b.name));
}

/**
 * The catalog as Markdown: an index table, then a section per package with its tools, hooks and
 * options. A workspace's is docs/catalog.md; elsewhere the opening says what was listed, and
 * whether options were read.
 */
export function renderCatalog(catalog: Catalog): string {
  const out: string[] = ['# Extension catalog', '', ...intro(catalog), '', '| package | kind | kernel | provides | description |', '| --- | --- | --- | --- | --- |'];
  for (const p of catalog.packages) {
    const provides = [...p.tools.map((t) => `tool \`${t}\``), ...p.hooks.map((h) => `\`${h}\``)].join(', ');
    out.push(`| [${p.name}](#${anchor(p.name)}) | ${p.kind} | ${p.kernel === undefined ? '' : `\`${p.kernel}\``} | ${provides} | ${cell(p.description ?? '')} |`);
  }
  for (const p of catalog.packages) out.push('', ...packageSection(p, catalog.optionsRead));
  return `${out.join('\n')}\n`;
}

function packageSection(p: CatalogEntry, optionsRead: boolean): string[] {
  const lines = [`## ${p.name}`, '', `${p.kind} · version ${p.version}${p.kernel === undefined ? '' : ` · kernel \`${p.kernel}\``} · \`${p.dir}\``, ''];
  if (p.description !== undefined) lines.push(p.description, '');
  if (p.kind === 'library' && p.entry === undefined) return trimEnd(lines);
  lines.push(`- Tools: ${p.tools.length === 0 ? 'none' : p.tools.map((t) => `\`${t}\``).join(', ')}`);
  lines.push(`- Hooks: ${p.hooks.length === 0 ? 'none' : p.hooks.map(hookText).join(', ')}`);
  if (p.problem !== undefined) lines.push(`- Options could not be read: ${p.problem}`);
  else if (!optionsRead) lines.push('- Options: not read (see above)');
  else if (p.options.length === 0) lines.push('- Options: none');
  else lines.push('', ...optionsTable(p.options));
  return lines;
}

/**
 * Why a catalog has no options, and how to get them: a folder's or tarball's need trust (reading
 * them runs the module); a registry's documents hold the manifest only.
 */
export function optionsNotRead(kind: CatalogSourceKind): string {
  return kind === 'registry'
    ? "a registry's documents hold the manifest, not the code: `npm pack <name>`, review it, then `airlock extensions catalog <the .tgz> --trust`"
    : "reading options imports each package's module, which runs its code: review the packages, then run the catalog again with --trust";
}

function intro(catalog: Catalog): string[] {
  if (catalog.source.kind === 'workspace') {
    return [
      '<!-- Generated by `airlock extensions catalog --write` from every package manifest in this workspace. Do not edit: a test fails when this file is stale. -->',
      '',
      "Every package Airlock's workspace ships, by kind: **tool** packages add tools, **policy** packages",
      'add hooks that judge, ask about, redact or record calls, **library** packages hold code the others',
      'import (they load nothing themselves). Options are what an entry in `extensions` may set',
      '(`{ "name" | "path": …, "options": { … } }`, docs/settings.md); `airlock extensions info <name>`',
      'shows the same for any installed extension, with the commands it brings.',
      ...(catalog.optionsRead ? [] : ['', `Options were not read: ${optionsNotRead('workspace')}.`]),
    ];
  }
  const from = { folder: 'the folder', tarball: 'the tarball', registry: 'the registry' }[catalog.source.kind];
  const n = catalog.packages.length;
  return [
    `${n} extension package${n === 1 ? '' : 's'} from ${from} \`${catalog.source.where}\`, by kind: **tool** packages add tools,`,
    '**policy** packages add hooks that judge, ask about, redact or record calls.',
    catalog.optionsRead ? 'Options are what an entry in `extensions` may set (docs/settings.md).' : `Options were not read: ${optionsNotRead(catalog.source.kind)}.`,
  ];
}

/** `tool_call:authorize` → `tool_call` (phase `authorize`). */
function hookText(hook: string): string {
  const [name, phase] = hook.split(':');
  return `\`${name}\` (phase \`${phase}\`)`;
}

/** The options as a Markdown table (shared with `extensions info`'s Markdown-free output through OptionRow). */
export function optionsTable(rows: readonly OptionRow[]): string[] {
  return [
    '| option | type | default | description |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| \`${r.key}\` | \`${cell(r.type)}\` | ${r.default === undefined ? (r.required ? 'required' : '') : `\`${cell(JSON.stringify(r.default))}\``} | ${cell(r.description ?? '')}${r.valueKind === undefined ? '' : ` (kind \`${r.valueKind}\`: counts only in trusted settings)`} |`,
    ),
  ];
}

/** A Markdown table cell: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** GitHub's heading anchor: lowercase, punctuation other than - and _ dropped. */
function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
}

function trimEnd(lines: string[]): string[] {
  while (lines.at(-1) === '') lines.pop();
  return lines;
}

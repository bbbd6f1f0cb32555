import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { displayText } from '@airlock/toolkit/display';
import { projectTrust } from '../extensions/project-trust.js';
import { buildCatalog, catalogOfFolders, findWorkspaceRoot, optionsNotRead, renderCatalog, sortByKind, type Catalog } from '../extensions/catalog.js';
import { extensionFolders, unpackTarball } from '../extensions/catalog-sources.js';
import { configuredRegistry, scopeOf } from '../extensions/npm-registry.js';
import { searchRegistry } from '../extensions/registry-search.js';
import { describeHits } from '../extensions/registry-facts.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

const WHAT = 'Give a package folder, a folder of packages (a node_modules), a workspace, or a .tgz made by `npm pack`; or --registry with words to search for.';

/**
 * `airlock extensions catalog [folder|tarball] [--write] [--json]`, or `--registry [words…]`:
 * the extension packages a workspace (the one around the current folder by default), a package
 * folder, a folder of packages, a tarball or the configured registry holds, as Markdown on
 * stdout, as data (`--json`), or written to the workspace's `docs/catalog.md` (`--write`).
 * Manifests are read without trust; options only with it (reading them imports each module), so
 * an untrusted source gets the manifests and a note saying how to get the options. A registry's
 * options are never read (its documents hold no code). Exits 2 when a package's manifest or
 * options could not be read (the catalog is still printed, with the problem in it), so CI notices
 * a broken package.
 */
export async function extensionsCatalogCommand(o: { source?: string[]; write?: boolean; registry?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  const words = o.source ?? [];
  if (o.registry && o.write) throw new UsageError("--write writes a workspace's docs/catalog.md; it does not go with --registry.", 'Redirect the output instead: airlock extensions catalog --registry <words> > catalog.md');
  if (!o.registry && words.length > 1) throw new UsageError(`extensions catalog takes one folder or tarball, got ${words.length}: ${words.map((w) => displayText(w)).join(' ')}.`, `${WHAT} Words to search for go with --registry.`);
  const scratch = mkdtempSync(join(tmpdir(), 'airlock-catalog-'));
  try {
    const catalog = o.registry ? await registryCatalog(words, scratch, g, io) : await localCatalog(words[0], scratch, o.write === true, g, io);
    const broken = catalog.packages.filter((p) => p.problem !== undefined);
    for (const p of broken) io.stderr.write(`airlock: ${displayText(p.name)}: ${displayText(p.problem!, { maxChars: 2000 })}\n`);
    if (catalog.packages.length === 0) io.stderr.write(`No extension packages in ${displayText(catalog.source.where, { maxChars: 300 })} (none has an \`airlock\` manifest or the airlock-extension keyword).\n`);
    else if (!catalog.optionsRead) io.stderr.write(`Options were not read: ${optionsNotRead(catalog.source.kind)}.\n`);
    if (o.write) {
      const file = join(catalog.source.where, 'docs', 'catalog.md');
      await writeFile(file, renderCatalog(catalog));
      io.stderr.write(`Wrote ${displayText(file)} (${catalog.packages.length} packages).\n`);
    }
    if (g.json) io.stdout.write(`${JSON.stringify(catalog, null, 2)}\n`);
    // Markdown is data like --json: left as it is for a file or a program (a terminal gets it escaped, see processIO).
    else if (!o.write) io.stdout.write(renderCatalog(catalog));
    return broken.length > 0 ? EXIT.usage : EXIT.ok;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A workspace, a folder or a tarball; trust (for the options) as the host decides it for that folder. */
async function localCatalog(target: string | undefined, scratch: string, write: boolean, g: GlobalOptions, io: IO): Promise<Catalog> {
  const from = resolve(io.cwd, g.cwd ?? '.');
  const path = target === undefined ? (findWorkspaceRoot(from) ?? from) : resolve(from, target);
  if (!existsSync(path)) throw new UsageError(`${displayText(target ?? path, { maxChars: 300 })} does not exist.`, WHAT);
  const shown = displayText(path, { maxChars: 300 });
  const tarball = statSync(path).isFile();
  const workspace = !tarball && existsSync(join(path, 'pnpm-workspace.yaml'));
  if (write && !workspace) throw new UsageError(`--write writes a workspace's docs/catalog.md, and ${shown} holds no pnpm-workspace.yaml.`, `Redirect the output instead: airlock extensions catalog ${target ?? '.'} > catalog.md`);
  // Reading options imports each extension's module: its code runs, so the folder must be trusted.
  // A tarball has no folder to trust yet: only --trust reads its options.
  const trusted = tarball ? g.trust === true : (await projectTrust(path, g.trust, io.env, io.env.HOME ?? homedir())).trusted;
  if (write && !trusted) {
    throw new UsageError(`The workspace ${shown} is not trusted, and docs/catalog.md lists each extension's options, read by importing its module.`, `Review it, then run \`airlock trust ${shown}\` (or pass --trust for this run only).`);
  }
  if (workspace) return buildCatalog(path, { trusted });
  if (!tarball) return catalogOfFolders(extensionFolders(path), { kind: 'folder', where: path }, { trusted });
  if (!/\.(tgz|tar\.gz)$/.test(path)) throw new UsageError(`${shown} is a file, not a folder or a .tgz.`, WHAT);
  const unpacked = await unpackTarball(path, scratch, io.env);
  if (!unpacked.ok) throw new UsageError(`${shown} could not be read: ${unpacked.problem}.`, 'Give a .tgz made by `npm pack` (or `npm pack <name>` to download one).');
  return catalogOfFolders(extensionFolders(unpacked.dir), { kind: 'tarball', where: path }, { trusted, label: () => basename(path) });
}

/** The configured registry's extension packages matching `words`: manifests only. */
async function registryCatalog(words: string[], scratch: string, g: GlobalOptions, io: IO): Promise<Catalog> {
  const scope = words.map(scopeOf).find((s) => s !== undefined);
  const registry = await configuredRegistry(io.env, resolve(io.cwd, g.cwd ?? '.'), scope);
  const found = await searchRegistry(registry.url, words, { size: 250 });
  if (!found.ok) throw new UsageError(found.problem, found.fix);
  const packages = describeHits(found.hits, scratch).map(({ fit: _fit, ...facts }) => ({ ...facts, dir: `${registry.url}${facts.name}` }));
  return { source: { kind: 'registry', where: registry.url }, optionsRead: false, packages: sortByKind(packages) };
}

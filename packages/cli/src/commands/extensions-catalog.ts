import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { projectTrust } from '../extensions/project-trust.js';
import { displayText } from '@airlock/toolkit/display';
import { buildCatalog, findWorkspaceRoot, renderCatalog } from '../extensions/catalog.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/**
 * `airlock extensions catalog [--write] [--json]`: the catalog of the workspace around the
 * current folder, as Markdown on stdout, as data (`--json`, also with `--write`), or written to
 * `docs/catalog.md` (`--write`). The workspace must be trusted (its extension modules are
 * imported to read their options). Exits 2 when a package's manifest or options could not be read (the catalog is
 * still printed or written, with the problem in it), so CI notices a broken package.
 */
export async function extensionsCatalogCommand(o: { write?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  const from = resolve(io.cwd, g.cwd ?? '.');
  const root = findWorkspaceRoot(from);
  if (root === undefined) {
    throw new UsageError(`No pnpm-workspace.yaml in ${displayText(from, { maxChars: 300 })} or above it: the catalog lists the packages of a workspace.`, 'Run it inside a clone of Airlock (or pass --cwd <the clone>).');
  }
  // Reading options imports each extension's module: the workspace's code runs, so it must be trusted.
  const trust = await projectTrust(root, g.trust, io.env, io.env.HOME ?? homedir());
  if (!trust.trusted) {
    const shown = displayText(root, { maxChars: 300 });
    throw new UsageError(`The workspace ${shown} is not trusted, and the catalog imports each extension's module to read its options.`, `Review it, then run \`airlock trust ${shown}\` (or pass --trust for this run only).`);
  }
  const catalog = await buildCatalog(root);
  const broken = catalog.packages.filter((p) => p.problem !== undefined);
  for (const p of broken) io.stderr.write(`airlock: ${displayText(p.name)}: ${displayText(p.problem!, { maxChars: 2000 })}\n`);
  if (o.write) {
    const file = join(root, 'docs', 'catalog.md');
    await writeFile(file, renderCatalog(catalog));
    io.stderr.write(`Wrote ${displayText(file)} (${catalog.packages.length} packages).\n`);
  }
  if (g.json) io.stdout.write(`${JSON.stringify(catalog, null, 2)}\n`);
  else if (!o.write) io.stdout.write(renderCatalog(catalog));
  return broken.length > 0 ? EXIT.usage : EXIT.ok;
}

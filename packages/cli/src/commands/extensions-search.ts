import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KERNEL_VERSION } from '@airlock/kernel';
import { displayText } from '@airlock/toolkit/display';
import { configuredRegistry, scopeOf } from '../extensions/npm-registry.js';
import { searchRegistry } from '../extensions/registry-search.js';
import { describeHits, type RegistryPackage } from '../extensions/registry-facts.js';
import { table } from '../format.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/** npm's search API takes 1 to 250 results a page. */
const MAX_LIMIT = 250;

/**
 * `airlock extensions search <words…> [--limit n] [--json]`: the configured npm registry's
 * extension packages (keyword `airlock-extension`, or an `airlock` manifest) matching the words,
 * each with its latest version, kind, kernel range and whether this CLI can load it, judged by
 * the host's own kernel check. The registry is the one npm would use (`npm_config_registry`,
 * then `npm config get registry`; a scope's registry when a word is `@scope` or `@scope/name`).
 * Exits 2 when the registry cannot be asked (the message names it and the fix), 0 otherwise,
 * even when nothing matched.
 *
 * @example airlock extensions search guard --json
 */
export async function extensionsSearchCommand(o: { words: string[]; limit?: string }, g: GlobalOptions, io: IO): Promise<number> {
  const limit = o.limit === undefined ? 20 : Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${displayText(o.limit ?? '')}.`, 'Example: airlock extensions search guard --limit 50');
  const scope = o.words.map(scopeOf).find((s) => s !== undefined);
  const registry = await configuredRegistry(io.env, resolve(io.cwd, g.cwd ?? '.'), scope);
  const found = await searchRegistry(registry.url, o.words, { size: limit });
  if (!found.ok) throw new UsageError(found.problem, found.fix);
  const scratch = mkdtempSync(join(tmpdir(), 'airlock-search-'));
  try {
    const packages = describeHits(found.hits, scratch);
    if (g.json) io.stdout.write(`${JSON.stringify({ registry: registry.url, registryFrom: registry.from, kernelVersion: KERNEL_VERSION, words: o.words, packages: packages.map(asData) }, null, 2)}\n`);
    else io.stdout.write(render(o.words, registry.url, packages));
    return EXIT.ok;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** What --json gives per package: the manifest's facts, whether this CLI loads it and why not. */
function asData(p: RegistryPackage) {
  return {
    name: p.name,
    version: p.version,
    description: p.description ?? null,
    kind: p.problem === undefined ? p.kind : null,
    kernel: p.kernel ?? null,
    loads: p.fit.loads,
    ...(p.fit.loads ? {} : { why: p.fit.why }),
    tools: p.tools,
    hooks: p.hooks,
    problem: p.problem ?? null,
  };
}

function render(words: readonly string[], registry: string, packages: readonly RegistryPackage[]): string {
  const asked = `"${displayText(words.join(' '), { maxChars: 200 })}" in ${displayText(registry, { maxChars: 300 })}`;
  if (packages.length === 0) {
    return `No extension packages match ${asked}.\nPackages are found by their "airlock-extension" keyword (or an airlock manifest); try fewer or other words.\n`;
  }
  const rows = [['NAME', 'VERSION', 'KIND', 'KERNEL', `LOADS (kernel ${KERNEL_VERSION})`, 'DESCRIPTION']];
  for (const p of packages) {
    rows.push([p.name, p.version, p.problem === undefined ? p.kind : '?', p.kernel ?? '', loadsCell(p), oneLine(p.description ?? '')]);
  }
  const lines = [`Extension packages matching ${asked}:`, '', table(rows).trimEnd(), ''];
  // Why a package would be refused, in the host's words, under the table: a cell would cut it.
  for (const p of packages) if (!p.fit.loads) lines.push(`${displayText(p.name)}: ${displayText(p.problem ?? p.fit.why, { maxChars: 500 })}`);
  lines.push(`${packages.length} package${packages.length === 1 ? '' : 's'}. Install one with \`airlock extensions add <name>\`; \`airlock extensions check <its .tgz>\` before trusting it.`);
  return `${lines.join('\n')}\n`;
}

/** yes, or no with the side to upgrade in a few words (the host's full sentence follows the table). */
function loadsCell(p: RegistryPackage): string {
  if (p.fit.loads) return 'yes';
  if (p.problem !== undefined) return 'no: broken manifest';
  if (p.kernel === undefined) return 'no: no kernel range';
  return p.fit.upgrade === 'airlock' ? 'no: needs a newer Airlock' : p.fit.upgrade === 'extension' ? 'no: too old' : 'no';
}

/** A description cell: one line, at most 60 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

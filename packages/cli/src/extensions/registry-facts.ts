import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeManifest, type PackageFacts } from './package-facts.js';
import { kernelFit, type KernelFit } from './kernel-fit.js';
import type { RegistryHit } from './registry-search.js';

/** A registry package as search and the catalog show it: its manifest's facts and whether this CLI loads it. */
export interface RegistryPackage extends PackageFacts {
  fit: KernelFit;
}

/**
 * What each hit's published package.json says, read by the host's own `readManifest` (the same
 * checks an install gets): each manifest is written to `scratch/<n>/package.json` and described
 * without importing anything (there is no code here, only the registry's document).
 *
 * @example const packages = describeHits(outcome.hits, mkdtempSync(join(tmpdir(), 'airlock-')));
 */
export function describeHits(hits: readonly RegistryHit[], scratch: string): RegistryPackage[] {
  const out: RegistryPackage[] = [];
  for (const [i, hit] of hits.entries()) {
    const base = { name: hit.name, version: hit.version, ...(hit.description === undefined ? {} : { description: hit.description }) };
    if (hit.manifest === undefined) {
      out.push({ ...base, kind: 'library', tools: [], hooks: [], options: [], problem: hit.problem ?? 'no package.json', fit: { loads: false, why: hit.problem ?? 'unknown' } });
      continue;
    }
    const dir = join(scratch, String(i));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...hit.manifest, name: hit.name, version: hit.version }));
    const facts = describeManifest(dir);
    out.push({ ...facts, fit: kernelFit(facts.name, facts.version, facts.kernel) });
  }
  return out;
}

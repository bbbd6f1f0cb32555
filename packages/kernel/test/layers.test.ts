import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The kernel's layers (docs/kernel.md, "Layers"): each layer imports only from layers below it, so
 * the bus can be read without the call stages and the registry without the pipeline. The layers
 * between packages are in package-layers.test.ts.
 */

const src = fileURLToPath(new URL('../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every file under src/ with the src-relative paths of the kernel files it imports (types included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(src)) {
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const targets = [...code.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(([, spec]) =>
      relative(src, normalize(join(dirname(file), spec!))).replace(/\\/g, '/').replace(/\.js$/, '.ts'),
    );
    graph.set(relative(src, file).replace(/\\/g, '/'), targets);
  }
  return graph;
}

/** The files that run calls: they sit on top and nothing below may import them. */
const PIPELINE = /^(run-tool-call|run-batch|batch-schedule|preflight|kernel|index)\.ts$/;
const BASE = /^wording\.ts$|^state\//;

const RULES: { layer: string; files: RegExp; forbidden: (target: string) => boolean }[] = [
  {
    layer: 'the shared call state and wording (state/, wording.ts) import no bus, call stage or pipeline file',
    files: BASE,
    forbidden: (t) => /^(bus|call)\//.test(t) || PIPELINE.test(t),
  },
  { layer: 'bus/ imports no call stage or pipeline file', files: /^bus\//, forbidden: (t) => /^call\//.test(t) || PIPELINE.test(t) },
  { layer: 'registry.ts imports no bus, call stage or pipeline file', files: /^registry\.ts$/, forbidden: (t) => /^(bus|call)\//.test(t) || PIPELINE.test(t) },
  { layer: 'call/ imports no pipeline file', files: /^call\//, forbidden: (t) => PIPELINE.test(t) },
];

describe('the kernel imports downward only', () => {
  const graph = importGraph();

  it('finds the files the rules are about (a moved folder would make the rules vacuous)', () => {
    for (const rule of RULES) expect([...graph.keys()].filter((f) => rule.files.test(f)).length, rule.layer).toBeGreaterThan(0);
    for (const file of ['state/call-state.ts', 'wording.ts', 'bus/hooks.ts', 'bus/handler-policy.ts', 'registry.ts']) expect(graph.has(file), file).toBe(true);
  });

  it.each(RULES.map((rule) => [rule.layer, rule] as const))('%s', (_layer, rule) => {
    const offenders: string[] = [];
    for (const [file, targets] of graph) {
      if (!rule.files.test(file)) continue;
      for (const target of targets) if (rule.forbidden(target)) offenders.push(`${file} → ${target}`);
    }
    expect(offenders).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KERNEL_VERSION, TOOL_CALL_PHASES, TOOL_RESULT_PHASES } from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('the kernel stays a microkernel', () => {
  // The contract and the toolkit are Airlock's own packages below it (package-layers.test.ts).
  it('has four runtime dependencies: the contract and the toolkit, and typebox and tapable pinned', () => {
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@airlock/contract', '@airlock/toolkit', 'tapable', 'typebox']);
    for (const [name, version] of Object.entries(pkg.dependencies)) expect(version).toMatch(name.startsWith('@airlock/') ? /^workspace:\*$/ : /^\d+\.\d+\.\d+$/);
  });

  it('is at most 5,000 lines of source, its test helpers included', () => {
    const lines = sources(join(root, 'src')).reduce((n, file) => n + readFileSync(file, 'utf8').split('\n').length, 0);
    expect(lines).toBeLessThanOrEqual(5000);
  });

  it('imports nothing but node built-ins, its four dependencies and its own files', () => {
    const offenders: string[] = [];
    for (const file of sources(join(root, 'src'))) {
      // Doc comments show imports an extension would write: not the kernel's own.
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const [, spec] of code.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        if (!/^(node:|\.{1,2}\/|typebox(\/|$)|tapable$|@airlock\/contract$|@airlock\/toolkit(\/util)?$)/.test(spec!)) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('reports the version its package.json declares (extensions check their range against it)', () => {
    expect(KERNEL_VERSION).toBe(pkg.version);
  });

  it('keeps phases in run order with gaps, each in the stage of its hook, and every phase fully described', () => {
    for (const [table, stage] of [[TOOL_CALL_PHASES, 4], [TOOL_RESULT_PHASES, 7]] as const) {
      const orders = Object.values(table).map((row) => row.order);
      expect([...orders].sort((a, b) => a - b)).toEqual(orders);
      expect(new Set(Object.values(table).map((row) => row.stage))).toEqual(new Set([stage]));
      for (const row of Object.values(table)) {
        expect(row.may.length).toBeGreaterThan(0);
        expect(row.onFailure.length).toBeGreaterThan(0);
      }
    }
  });
});

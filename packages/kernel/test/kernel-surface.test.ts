import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Kernel } from '../src/index.js';
import { testKernel } from './helpers.js';

/**
 * The kernel stays small: twelve public members, each one named by a test. A member added without
 * being listed here (and tested elsewhere) fails this file; host concerns belong in HostServices.
 */
const MEMBERS = ['registry', 'session', 'on', 'onEvent', 'status', 'executeToolCall', 'executeBatch', 'preflight', 'refuseBatch', 'refuseAll', 'onDispose', 'dispose'];

const TESTS = fileURLToPath(new URL('.', import.meta.url));

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? testSources(join(dir, e.name)) : e.name.endsWith('.test.ts') && e.name !== 'kernel-surface.test.ts' ? [readFileSync(join(dir, e.name), 'utf8')] : []));
}

describe('the Kernel class', () => {
  it('has exactly the public members listed, at most twelve', () => {
    const kernel = testKernel();
    const own = Object.keys(kernel);
    const methods = Object.getOwnPropertyNames(Kernel.prototype).filter((name) => name !== 'constructor');
    expect([...new Set([...own, ...methods])].sort()).toEqual([...MEMBERS].sort());
    expect(MEMBERS.length).toBeLessThanOrEqual(12);
  });

  it.each(MEMBERS)('%s is used by a kernel test', (member) => {
    const used = new RegExp(`\\.${member}\\b`);
    expect(testSources(TESTS).some((code) => used.test(code)), `no test under packages/kernel/test uses .${member}`).toBe(true);
  });
});

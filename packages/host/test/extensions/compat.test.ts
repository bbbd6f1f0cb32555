import { createTestHost } from '@airlock/kernel/testing';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel, KERNEL_VERSION } from '@airlock/kernel';
import { checkKernelRange, loadExtensions } from '../../src/extensions/index.js';
import { dirsIn, entry, removeTempDirs, tempDir, writePackage } from './fixtures.js';

afterAll(removeTempDirs);

const subject = { extension: 'acme-guard', layer: 'project' as const, file: '/p/.airlockrc.json' };
const check = (range: string, kernelVersion = '1.0.0') =>
  checkKernelRange({ packageName: '@acme/guard', version: '3.2.1', range, kernelVersion }, subject);

describe('checkKernelRange', () => {
  it('accepts a satisfied range', () => {
    expect(check('^1.0.0')).toBeUndefined();
    expect(check('>=1.0.0 <2')).toBeUndefined();
    expect(check('1.x')).toBeUndefined();
  });

  it('reports an invalid range and an unsatisfied one as two different errors, each naming both versions', () => {
    const invalid = check('^1.x.x.y');
    const unsatisfied = check('^2.0.0');
    expect(invalid?.code).toBe('AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID');
    expect(unsatisfied?.code).toBe('AIRLOCK_EXTENSION_INCOMPATIBLE');
    for (const d of [invalid!, unsatisfied!]) {
      expect(d.severity).toBe('error');
      expect(d.message).toContain('"acme-guard"');
      expect(d.message).toContain('@acme/guard@3.2.1');
      expect(d.message).toContain('kernel 1.0.0');
      expect(d.file).toBe('/p/.airlockrc.json');
    }
    expect(invalid!.message).toContain('"^1.x.x.y"');
    expect(invalid!.message).toContain('not a valid semver range');
    expect(unsatisfied!.message).toContain('needs kernel "^2.0.0"');
  });

  it('says which side to upgrade', () => {
    expect(check('^2.0.0')!.fix).toMatch(/^upgrade Airlock/);
    expect(check('^0.5.0')!.fix).toMatch(/^upgrade @acme\/guard/);
    expect(check('<1.0.0 || >=3.0.0')!.fix).toMatch(/^use a release of @acme\/guard/);
  });

  it('lets a prerelease kernel satisfy a plain range (includePrerelease)', () => {
    expect(check('^1.2.0', '1.3.0-beta.1')).toBeUndefined();
    expect(check('>=1.2.0 <2', '1.3.0-beta.1')).toBeUndefined();
    expect(check('^1.2.0', '2.0.0-rc.1')?.code).toBe('AIRLOCK_EXTENSION_INCOMPATIBLE');
  });

  it('treats an empty range as invalid rather than "any kernel"', () => {
    expect(check('')?.code).toBe('AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID');
  });
});

describe('compatibility while loading', () => {
  it('never imports an incompatible extension, and marks it incompatible', async () => {
    const root = tempDir();
    // Importing either module would throw: a diagnostic other than the range ones means it ran.
    const throwing = `throw new Error('imported!');\nexport default {};\n`;
    writePackage(join(root, 'future'), { name: 'future', kernel: '^99.0.0', files: { 'src/index.ts': throwing } });
    writePackage(join(root, 'typo'), { name: 'typo', kernel: 'one point oh', files: { 'src/index.ts': throwing } });
    const { kernel, services } = createTestHost({ cwd: root });
    const result = await loadExtensions({
      entries: [entry('./future', root), entry('./typo', root)],
      kernel,
      services,
      trust: { trusted: true, projectDir: root },
      dirs: dirsIn(root),
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['AIRLOCK_EXTENSION_INCOMPATIBLE', 'AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID']);
    expect(result.diagnostics[0]!.message).toContain(`kernel ${KERNEL_VERSION}`);
    expect(result.extensions.map((e) => [e.name, e.kernelRange, e.compatible, e.status])).toEqual([
      ['future', '^99.0.0', false, 'failed'],
      ['typo', 'one point oh', false, 'failed'],
    ]);
  });
});

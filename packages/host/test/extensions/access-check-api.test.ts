import { createTestHost } from '@airlock/kernel/testing';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { createKernel, NO_UI } from '@airlock/kernel';
import { defineTool, type AccessVerdict } from '@airlock/contract';
import { createExtensionApi } from '../../src/extensions/api.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A tool that reports what ctx.access says about one path. */
const probe = defineTool({
  name: 'probe',
  label: 'Probe',
  description: 'Ask ctx.access about a path.',
  parameters: Type.Object({ path: Type.String() }),
  async execute(_id, { path }, _s, _u, ctx) {
    return { content: [{ type: 'text', text: 'ok' }], details: ctx!.access.check({ kind: 'fs.read', path }) };
  },
});

function sandbox(extension: string) {
  const { kernel, services } = createTestHost({ cwd: '/work' });
  kernel.registry.register(probe, { source: 'sdk' });
  const box = createExtensionApi({ kernel, services, extension, origin: `${extension}@1.0.0`, toolSource: 'extension', ui: NO_UI, log: silent, settings: {}, cwd: '/work' });
  const verdict = async (path: string) => (await kernel.executeToolCall({ id: '1', name: 'probe', arguments: { path } })).details as AccessVerdict;
  return { kernel, box, verdict };
}

const denyEnv = ({ path }: { path: string }): AccessVerdict | undefined => (path.endsWith('.env') ? { effect: 'deny', reason: 'secret', rule: 'r' } : undefined);

describe('api.registerAccessCheck', () => {
  it('feeds ctx.access, and makes the extension a policy extension (fail closed if it fails to load)', async () => {
    const s = sandbox('acme');
    expect(s.box.policy).toBe(false);
    s.box.api.registerAccessCheck(denyEnv, { name: 'env' });
    expect(s.box.policy).toBe(true);
    expect((await s.verdict('/work/.env')).effect).toBe('deny');
    expect((await s.verdict('/work/a.ts')).effect).toBe('allow');
  });

  it('a check that fails is named with the extension prefix in the verdict', async () => {
    const s = sandbox('acme');
    s.box.api.registerAccessCheck(() => {
      throw new Error('boom');
    }, { name: 'files' });
    const v = await s.verdict('/work/a.ts');
    expect(v.effect).toBe('deny');
    expect(v.reason).toContain('"acme/files" failed');
  });

  it('is undone by a rollback (a failed setup leaves no check behind)', async () => {
    const s = sandbox('acme');
    s.box.api.registerAccessCheck(denyEnv);
    expect(s.box.rollback()).toEqual(['access check "acme/access-check"']);
    expect((await s.verdict('/work/.env')).effect).toBe('allow');
  });

  it('is refused after setup has finished, with a message saying to register inside setup', () => {
    const s = sandbox('acme');
    s.box.seal();
    expect(() => s.box.api.registerAccessCheck(denyEnv)).toThrow(/called api\.registerAccessCheck after its setup finished/);
  });
});

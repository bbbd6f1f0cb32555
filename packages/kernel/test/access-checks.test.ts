import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type AccessCheck, type AccessRequest, type AccessVerdict } from '@airlock/contract';
import { createTestContext, createTestHost } from '@airlock/kernel/testing';

/** A tool that asks ctx.access about the files it is given and returns the verdicts as details. */
const probe = defineTool({
  name: 'probe',
  label: 'Probe',
  description: 'Ask ctx.access about paths.',
  parameters: Type.Object({ paths: Type.Array(Type.String()) }),
  async execute(_id, { paths }, _signal, _update, ctx) {
    const verdicts = paths.map((path) => ctx!.access.check({ kind: 'fs.read', path }));
    return { content: [{ type: 'text', text: verdicts.map((v) => v.effect).join(',') }], details: verdicts };
  },
});

async function verdicts(checks: AccessCheck[], paths: string[]): Promise<AccessVerdict[]> {
  const { kernel, services } = createTestHost({ cwd: '/work' });
  checks.forEach((check, i) => services.access.add(`c${i + 1}`, check));
  kernel.registry.register(probe, { source: 'sdk' });
  const message = await kernel.executeToolCall({ id: '1', name: 'probe', arguments: { paths } });
  expect(message.outcome).toBe('ok');
  return message.details as AccessVerdict[];
}

const deny: AccessCheck = ({ path }) => (path.endsWith('.env') ? { effect: 'deny', reason: 'secret', rule: 'fs.read(**/.env)' } : undefined);
const ask: AccessCheck = () => ({ effect: 'ask', reason: 'outside', rule: 'default:read-outside-roots' });
const allow: AccessCheck = () => ({ effect: 'allow', reason: 'fine', rule: 'allow-all' });

describe('ctx.access: per-file checks registered with the kernel', () => {
  it('with no check registered, every file is allowed (the call itself was authorized)', async () => {
    const [v] = await verdicts([], ['/work/.env']);
    expect(v).toMatchObject({ effect: 'allow', rule: 'default:no-access-check' });
  });

  it('says whether any check is registered, so a tool can skip judging (grep skips its rg listing pass)', async () => {
    const { kernel, services } = createTestHost({ cwd: '/work' });
    const seen: boolean[] = [];
    kernel.registry.register(
      defineTool({ ...probe, name: 'active', async execute(_id, _p, _s, _u, ctx) {
        seen.push(ctx!.access.active);
        return { content: [{ type: 'text', text: 'ok' }] };
      } }),
      { source: 'sdk' },
    );
    await kernel.executeToolCall({ id: '1', name: 'active', arguments: { paths: [] } });
    const off = services.access.add('c1', deny);
    await kernel.executeToolCall({ id: '2', name: 'active', arguments: { paths: [] } });
    off();
    await kernel.executeToolCall({ id: '3', name: 'active', arguments: { paths: [] } });
    expect(seen).toEqual([false, true, false]);
  });

  it('deny wins over ask and allow, whatever order the checks were registered in', async () => {
    for (const order of [[allow, ask, deny], [deny, ask, allow], [ask, deny, allow]]) {
      const [env, other] = await verdicts(order, ['/work/.env', '/work/a.ts']);
      expect(env).toEqual({ effect: 'deny', reason: 'secret', rule: 'fs.read(**/.env)' });
      expect(other).toMatchObject({ effect: 'ask', rule: 'default:read-outside-roots' });
    }
  });

  it('two checks asking under different rules: the verdict names both rules', async () => {
    const other: AccessCheck = () => ({ effect: 'ask', reason: 'vendored', rule: 'fs.read(/vendor/**)' });
    const [v] = await verdicts([ask, other], ['/work/vendor/x']);
    expect(v).toEqual({ effect: 'ask', reason: 'outside; vendored', rule: 'default:read-outside-roots + fs.read(/vendor/**)' });
  });

  it('a check that throws, answers junk or answers a Promise is a deny naming it (fail closed)', async () => {
    const throws: AccessCheck = () => {
      throw new Error('rules not loaded');
    };
    const junk = (() => ({ effect: 'maybe' })) as unknown as AccessCheck;
    const later = (async () => ({ effect: 'allow', reason: 'x' })) as unknown as AccessCheck;
    const [a] = await verdicts([allow, throws], ['/work/a']);
    expect(a).toMatchObject({ effect: 'deny', rule: 'c2:failed' });
    expect(a!.reason).toContain('rules not loaded');
    const [b] = await verdicts([junk], ['/work/a']);
    expect(b).toMatchObject({ effect: 'deny', rule: 'c1:invalid' });
    const [c] = await verdicts([later], ['/work/a']);
    expect(c!.reason).toContain('a Promise (checks must be synchronous)');
  });

  it('a malformed request is denied with a message saying what it needs', async () => {
    const ctx = createTestContext({ accessChecks: [allow] });
    const v = ctx.access.check({ kind: 'fs.exec', path: '' } as unknown as AccessRequest);
    expect(v.effect).toBe('deny');
    expect(v.reason).toContain('needs {kind: "fs.read" | "fs.write", path: "<non-empty path>"}');
  });

  it('checks hear the tool the kernel called and the kernel cwd, not what the tool claims', async () => {
    const seen: string[] = [];
    await verdicts([({ tool, cwd, kind, path }) => void seen.push(`${tool} ${cwd} ${kind} ${path}`)], ['a.ts']);
    expect(seen).toEqual(['probe /work fs.read a.ts']);
  });

  it('the function adding a check returns removes it', async () => {
    const { kernel, services } = createTestHost({ cwd: '/work' });
    const off = services.access.add('c1', deny);
    kernel.registry.register(probe, { source: 'sdk' });
    const run = async () => (await kernel.executeToolCall({ id: '1', name: 'probe', arguments: { paths: ['/work/.env'] } })).details as AccessVerdict[];
    expect((await run())[0]!.effect).toBe('deny');
    off();
    expect((await run())[0]!.effect).toBe('allow');
  });

  it('refuses a check that is not a function, at registration', () => {
    const { kernel, services } = createTestHost({ cwd: '/work' });
    expect(() => services.access.add('bad', 'deny' as unknown as AccessCheck)).toThrow('An access check must be a function (got string for "bad")');
  });
});

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * `policy explain` and `policy test` ask the kernel (kernel.preflight) with every extension the
 * settings load, so a third-party policy's deny shows as that deny, naming its handler and rule,
 * and nothing runs or lands in the audit log.
 */

// Each call opens a host that loads the whole default set.
vi.setConfig({ testTimeout: scaledMs(90_000) });

/** A single-file authorize extension: denies any read of a path containing "forbidden". */
const GUARD = `export default {
  name: 'newcomer-guard',
  setup(api) {
    api.on('tool_call', (e) => (typeof e.args.path === 'string' && e.args.path.includes('forbidden') ? { effect: 'deny', rule: 'no-forbidden', reason: 'forbidden files stay closed' } : undefined), { name: 'rules', phase: 'authorize' });
  },
};
`;

/** A folder extension with a manifest: rewrites a read of "alias.txt" to "notes.txt". */
const REWRITE_MANIFEST = { name: 'rewrite-ext', version: '1.0.0', type: 'module', airlock: { extension: './index.js', kernel: '^1.0.0', hooks: ['tool_call:transform'] } };
const REWRITE = `export default {
  name: 'rewrite',
  setup(api) {
    api.on('tool_call', (e) => (e.args.path === 'alias.txt' ? { ...e.args, path: 'notes.txt' } : undefined), { name: 'rewrite/alias', phase: 'transform' });
  },
};
`;

function machine() {
  const base = makeTempDir('airlock-cli-policy-preflight-');
  const home = join(base, 'home');
  const dir = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(join(base, 'rewrite'), { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'forbidden.txt'), 'SECRET-BYTES\n');
  writeFileSync(join(dir, 'notes.txt'), 'plain notes\n');
  writeFileSync(join(base, 'guard.mjs'), GUARD);
  writeFileSync(join(base, 'rewrite', 'package.json'), JSON.stringify(REWRITE_MANIFEST));
  writeFileSync(join(base, 'rewrite', 'index.js'), REWRITE);
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [join(base, 'guard.mjs'), join(base, 'rewrite')] }));
  const auditDir = join(home, '.state', 'airlock');
  const airlock = async (args: string[]) => {
    const io = testIO(dir, home);
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  const auditRecords = (): { type: string }[] =>
    existsSync(auditDir)
      ? (readdirSync(auditDir, { recursive: true }) as string[])
          .filter((f) => f.endsWith('.jsonl'))
          .flatMap((f) => readFileSync(join(auditDir, f), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string }))
      : [];
  return { base, dir, home, airlock, auditRecords };
}

describe.sequential('policy explain on the kernel preflight', () => {
  it("a third-party extension's deny is shown as that deny, naming its handler and rule; nothing is read and no audit record is written", async () => {
    const m = machine();
    const human = await m.airlock(['policy', 'explain', 'read', '{"path":"forbidden.txt"}']);
    expect(human.code).toBe(0);
    expect(human.out).toContain('decision: deny (no-forbidden)  by newcomer-guard/rules');
    expect(human.out).toContain('forbidden files stay closed');
    expect(human.out).toMatch(/votes:\n(.*\n)*  deny  newcomer-guard\/rules \(no-forbidden\): forbidden files stay closed/);
    // path-policy voted too (allow for an ordinary file), and its detail section is still there.
    expect(human.out).toMatch(/ {2}allow path-policy\/rules/);
    expect(human.out).toContain('matched rules:');
    expect(human.out).not.toContain('SECRET-BYTES');

    const json = await m.airlock(['--json', 'policy', 'explain', 'read', '{"path":"forbidden.txt"}']);
    const report = JSON.parse(json.out) as { effect: string; outcome: string; rule: string; handler: string; votes: { handler: string; effect: string }[]; findings: unknown[] };
    expect(report).toMatchObject({ effect: 'deny', outcome: 'denied', rule: 'no-forbidden', handler: 'newcomer-guard/rules' });
    expect(report.votes.map((v) => `${v.handler}:${v.effect}`)).toEqual(expect.arrayContaining(['newcomer-guard/rules:deny', 'path-policy/rules:allow']));
    expect(Array.isArray(report.findings)).toBe(true);
    expect(m.auditRecords()).toEqual([]);

    // The real call is denied the same way, and that one is audited.
    const real = await m.airlock(['call', 'read', '{"path":"forbidden.txt"}']);
    expect(real.code).toBe(1);
    expect(real.out + real.err).not.toContain('SECRET-BYTES');
    expect(m.auditRecords().map((r) => r.type)).toEqual(['decision', 'result']);
  });

  it("a folder extension's transform: explain shows the rewrite with its handler and judges the rewritten path", async () => {
    const m = machine();
    const r = await m.airlock(['--json', 'policy', 'explain', 'read', '{"path":"alias.txt"}']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { args: { path: string }; proposedArgs: { path: string }; provenance: { handler: string }[]; effect: string; declaredResources: { path: string }[] };
    expect(report.proposedArgs.path).toBe('alias.txt');
    expect(report.args.path).toBe('notes.txt');
    expect(report.provenance.map((p) => p.handler)).toEqual(['rewrite/alias']);
    expect(report.declaredResources.map((x) => x.path)).toEqual([join(m.dir, 'notes.txt')]);
    expect(report.effect).toBe('allow');
    const human = await m.airlock(['policy', 'explain', 'read', '{"path":"alias.txt"}']);
    expect(human.out).toContain('transforms:\n  rewrite/alias: {"path":"alias.txt"} → {"path":"notes.txt"}');
  });
});

describe.sequential('policy test replays through the kernel preflight', () => {
  it('a file of calls: the third-party deny is reported with its handler, and --strict sees the change', async () => {
    const m = machine();
    writeFileSync(
      join(m.dir, 'calls.jsonl'),
      [JSON.stringify({ name: 'read', arguments: { path: 'forbidden.txt' }, decision: 'allow' }), JSON.stringify({ name: 'read', arguments: { path: 'notes.txt' }, decision: 'allow' })].join('\n'),
    );
    const r = await m.airlock(['policy', 'test', 'calls.jsonl']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('calls.jsonl:1 read {"path":"forbidden.txt"} → deny (was allow) CHANGED\n    no-forbidden by newcomer-guard/rules: forbidden files stay closed');
    expect(r.out).toContain('calls.jsonl:2 read {"path":"notes.txt"} → allow (same as recorded)');
    expect(r.out).toContain('2 recorded calls replayed, 1 decided differently');
    expect((await m.airlock(['policy', 'test', '--strict', 'calls.jsonl'])).code).toBe(1);
    expect(m.auditRecords()).toEqual([]);
  });

  it('an audit log: each call replayed once from its decision record, result records skipped, nothing new written to the log', async () => {
    const m = machine();
    expect((await m.airlock(['call', 'read', '{"path":"notes.txt"}'])).code).toBe(0);
    expect((await m.airlock(['call', 'read', '{"path":"forbidden.txt"}'])).code).toBe(1);
    const records = m.auditRecords();
    expect(records.map((r) => r.type)).toEqual(['decision', 'result', 'decision', 'result']);
    const log = join(m.base, 'audit.jsonl');
    writeFileSync(log, records.map((r) => JSON.stringify(r)).join('\n'));
    const r = await m.airlock(['--json', 'policy', 'test', log]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { replay: { line: number; effect: string; recorded: string; changed: boolean; handler?: string }[]; changed: number };
    expect(out.replay.map((x) => [x.line, x.effect, x.recorded, x.changed])).toEqual([
      [1, 'allow', 'allow', false],
      [3, 'deny', 'deny', false],
    ]);
    expect(out.replay[1]!.handler).toBe('newcomer-guard/rules');
    expect(out.changed).toBe(0);
    expect(r.err).not.toContain('skipped');
    expect(m.auditRecords()).toHaveLength(4);
  });
});

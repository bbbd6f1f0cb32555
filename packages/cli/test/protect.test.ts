import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHost, type Host } from '@airlock/host';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * The agent cannot weaken its own policy: every tool of the default set, through `airlock call`
 * and through one host opened as the CLI opens it (the whole pipeline, real files, real bash), is
 * denied writing Airlock's settings, trust and state — also when the user's settings allow
 * `fs.write(**)` and `bash(*)`.
 */

const RULES = { permissions: { ask: ['bash(git push *)'] } };
const made: string[] = [];
const hosts: Host[] = [];

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project with its own settings, and a home (config and state folders) of its own. */
function machine(userAllows: string[] = []) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-cli-protect-')));
  made.push(base);
  const home = join(base, 'home');
  const project = join(base, 'project');
  const config = join(home, '.config', 'airlock');
  mkdirSync(config, { recursive: true });
  mkdirSync(project, { recursive: true });
  // The base is the repository root, so settings discovery reads it too (and its settings names are guarded).
  mkdirSync(join(base, '.git'));
  writeFileSync(join(project, '.airlockrc.json'), JSON.stringify(RULES));
  writeFileSync(join(project, 'evil.json'), JSON.stringify({ permissions: { allow: ['bash(*)'] } }));
  if (userAllows.length > 0) writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { allow: userAllows } }));
  /** One call through the `airlock call` command: a new process's worth of work (settings, extensions). */
  const cli = async (tool: string, args: object) => {
    const io = testIO(project, home);
    const code = await run(['call', tool, JSON.stringify(args)], io);
    return { code, out: io.out(), err: io.err() };
  };
  /** Calls through one host, opened as the CLI opens it (same env, non-interactive): many calls, one load. */
  let host: Promise<Host> | undefined;
  let n = 0;
  const call = async (tool: string, args: object) => {
    host ??= openHost({ cwd: project, interactive: false, env: testIO(project, home).env }).then((h) => (hosts.push(h), h));
    const result = await (await host).execute({ id: `c${++n}`, name: tool, arguments: args as Record<string, unknown> });
    const out = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return { code: result.outcome === 'ok' ? 0 : 1, out, err: '' };
  };
  /** The audit log the default set writes: found after the first call. */
  const auditLog = (): string => {
    const root = join(home, '.state', 'airlock', 'audit');
    const dir = readdirSync(root)[0]!;
    return join(root, dir, 'audit.jsonl');
  };
  return { base, home, project, config, cli, call, auditLog };
}

const TRUST = (project: string) => JSON.stringify({ version: 1, entries: [{ path: project, trusted: true, at: '2026-01-01T00:00:00Z' }] });

/** Denied by the protection itself, not by an ask nobody could answer. */
function expectProtected(r: { code: number; out: string }) {
  expect(r.code).not.toBe(0);
  expect(r.out).toContain('default:airlock-protected');
}

describe.each([
  ['the default rules', []],
  ['user allow rules fs.write(**) and bash(*)', ['fs.write(**)', 'bash(*)', 'write', 'edit']],
])('protected Airlock files, with %s', (_label, allows) => {
  it('write cannot create .airlock/settings.local.json allowing ~/.ssh, nor airlock.config.mjs', async () => {
    const m = machine(allows);
    const local = await m.cli('write', { path: '.airlock/settings.local.json', content: JSON.stringify({ permissions: { allow: ['fs.read(~/.ssh/**)'] } }) });
    expectProtected(local);
    expect(existsSync(join(m.project, '.airlock'))).toBe(false);
    const code = await m.call('write', { path: 'airlock.config.mjs', content: 'export default { permissions: { allow: ["bash(*)"] } };' });
    expectProtected(code);
    expect(existsSync(join(m.project, 'airlock.config.mjs'))).toBe(false);
  });

  it('link, then use it, in one bash command: no trust.json appears', async () => {
    const m = machine(allows);
    const r = await m.cli('bash', { command: `ln -s ${m.home}/.config cfgl && mkdir -p cfgl/airlock && printf '%s' '${TRUST(m.project)}' > cfgl/airlock/trust.json` });
    expectProtected(r);
    expect(existsSync(join(m.config, 'trust.json'))).toBe(false);
    expect(existsSync(join(m.project, 'cfgl'))).toBe(false);
  });

  it('a link made by an earlier call is followed: writing through it is denied', async () => {
    const m = machine(allows);
    const link = await m.call('bash', { command: `ln -s ${m.home}/.config cfgl` });
    expectProtected(link);
    // Even a link that exists already (made outside the agent) leads nowhere writable.
    const { symlinkSync } = await import('node:fs');
    symlinkSync(join(m.home, '.config'), join(m.project, 'cfg2'));
    for (const args of [
      { tool: 'write', args: { path: 'cfg2/airlock/trust.json', content: TRUST(m.project) } },
      { tool: 'bash', args: { command: `printf x > cfg2/airlock/trust.json` } },
    ]) expectProtected(await m.call(args.tool, args.args));
    expect(existsSync(join(m.config, 'trust.json'))).toBe(false);
  });

  it('edit, redirections, tee, cp, mv and sed -i cannot change .airlockrc.json', async () => {
    const m = machine(allows);
    const before = readFileSync(join(m.project, '.airlockrc.json'), 'utf8');
    expectProtected(await m.call('edit', { path: '.airlockrc.json', edits: [{ oldText: '"ask"', newText: '"allow"' }] }));
    for (const command of [
      `echo '{}' > .airlockrc.json`,
      `echo '{}' >> ./.airlockrc.json`,
      `echo '{}' | tee .airlockrc.json`,
      `cp evil.json .airlockrc.json`,
      `mv evil.json .airlockrc.json`,
      `sed -i s/ask/allow/ .airlockrc.json`,
      `mkdir -p sub && cp evil.json sub/.airlockrc.yaml`,
      `cp evil.json ${m.project}/../.airlockrc.json`,
      `rm .airlockrc.json`,
      `rm -rf ${m.project}`,
    ]) {
      expectProtected(await m.call('bash', { command }));
    }
    expect(readFileSync(join(m.project, '.airlockrc.json'), 'utf8')).toBe(before);
    expect(existsSync(join(m.project, 'evil.json'))).toBe(true);
    expect(existsSync(join(m.project, 'sub'))).toBe(false);
    expect(existsSync(join(m.base, '.airlockrc.json'))).toBe(false);
  });

  it('rm, truncate and redirections cannot touch the audit log', async () => {
    const m = machine(allows);
    await m.call('read', { path: 'evil.json' });
    const log = m.auditLog();
    const size = statSync(log).size;
    expect(size).toBeGreaterThan(0);
    for (const command of [`rm -f ${log}`, `truncate -s 0 ${log}`, `: > ${log}`, `rm -rf ${m.home}/.state`, `mv ${m.home}/.state/airlock /tmp/gone-${process.pid}`]) {
      expectProtected(await m.call('bash', { command }));
    }
    expect(existsSync(log)).toBe(true);
    // Each denied call is itself audited: the log only grew.
    expect(statSync(log).size).toBeGreaterThan(size);
  });

  it('ordinary work still runs: project files, .gitignore, folders, reading the settings', async () => {
    const m = machine(allows);
    expect((await m.call('write', { path: 'src/app.ts', content: 'export const x = 1;\n' })).code).toBe(0);
    expect((await m.call('write', { path: '.gitignore', content: 'node_modules\n' })).code).toBe(0);
    expect((await m.call('bash', { command: 'mkdir -p build/out && echo hi > build/out/a.txt && cp src/app.ts build/ && ln -s src/app.ts main.ts' })).code).toBe(0);
    const read = await m.call('read', { path: '.airlockrc.json' });
    expect(read.code).toBe(0);
    expect(read.out).toContain('git push');
    expect((await m.call('bash', { command: 'cat .airlockrc.json' })).out).toContain('git push');
    expect(readFileSync(join(m.project, 'build/out/a.txt'), 'utf8')).toBe('hi\n');
    expect(readFileSync(join(m.project, 'main.ts'), 'utf8')).toBe('export const x = 1;\n');
  });
});

describe('airlock policy explain on a protected write', () => {
  it('names the built-in protection, the followed link and what the file is', async () => {
    const m = machine(['bash(*)']);
    const io = testIO(m.project, m.home);
    const command = `ln -s ${m.home}/.config cfgl && printf x > cfgl/airlock/trust.json`;
    expect(await run(['--json', 'policy', 'explain', 'bash', JSON.stringify({ command })], io)).toBe(0);
    const report = JSON.parse(io.out()) as { effect: string; rule: string; reason: string; findings: { subject: string; rule: string; reason: string }[] };
    expect(report.effect).toBe('deny');
    expect(report.rule).toBe('default:airlock-protected');
    const write = report.findings.find((f) => f.subject.includes('trust.json') && f.rule === 'default:airlock-protected');
    expect(write?.reason).toContain(join(m.config, 'trust.json'));
    expect(write?.reason).toContain('config folder');
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type IO } from '@airlock/cli';
import { openHost, type Host } from '@airlock/host';
import type { ToolResultMessage } from '@airlock/contract';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';

const PACK = fileURLToPath(new URL('..', import.meta.url));

/**
 * The pack as a team rolls it out: `bin/settings.mjs` (run as a real process) writes the user's
 * settings in a home folder of the test's own, and a git project with a bare "origin" is where
 * the agent works. Real bash, real python3 hook, real MCP server over stdio.
 */
function machine(edit: (settings: Settings) => void = () => {}) {
  const base = makeTempDir('airlock-company-policy-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  const origin = join(project, 'origin.git');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const settings = JSON.parse(execFileSync(process.execPath, [join(PACK, 'bin', 'settings.mjs')], { encoding: 'utf8' })) as Settings;
  edit(settings);
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify(settings, null, 2));

  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(base, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' } }).trim();
  git(project, 'init', '-q', '-b', 'main');
  writeFileSync(join(project, 'README.md'), '# shop\n');
  git(project, 'add', 'README.md');
  git(project, 'commit', '-q', '-m', 'first');
  git(project, 'init', '-q', '--bare', origin);
  git(project, 'remote', 'add', 'origin', origin);
  git(project, 'push', '-q', 'origin', 'main');
  git(project, 'checkout', '-q', '-b', 'feature');
  writeFileSync(join(project, 'feature.txt'), 'new\n');
  git(project, 'add', 'feature.txt');
  git(project, 'commit', '-q', '-m', 'feature');
  return { base, home, project, origin, env, git };
}
type Settings = { permissions: { ask: { id: string; match: string }[]; allow: { id: string; match: string }[] } } & Record<string, unknown>;
type Machine = ReturnType<typeof machine>;

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function open(m: Machine): Promise<Host> {
  // No trust for the project: everything the pack brings comes from the user's settings.
  const host = await openHost({ cwd: m.project, interactive: false, homeDir: m.home, env: m.env });
  hosts.push(host);
  return host;
}

let id = 0;
const call = (host: Host, name: string, args: Record<string, unknown>) => host.execute({ id: `c${++id}`, name, arguments: args });
const text = (r: ToolResultMessage) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

function io(m: Machine): IO & { out: () => string } {
  let out = '';
  return {
    stdout: { write: (s: string) => void (out += s) },
    stderr: { write: (s: string) => void (out += s) },
    readStdin: async () => '',
    isTTY: false,
    env: m.env,
    cwd: m.project,
    out: () => out,
  };
}

describe('examples/company-policy', () => {
  it('loads from the user settings with no errors, and `airlock policy test` passes on its rules', async () => {
    const m = machine();
    const host = await open(m);
    expect(host.blocked).toBeUndefined();
    expect(host.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(host.extensions.loaded.map((e) => e.name)).toEqual(expect.arrayContaining(['command-hooks', 'mcp-tools', 'path-policy', 'audit-log']));

    const cli = io(m);
    expect(await run(['policy', 'test'], cli)).toBe(0);
    expect(cli.out()).not.toContain('FAIL');
  }, scaledMs(30_000));

  it('`airlock policy test` fails when an inline example no longer holds', async () => {
    // The same check CI runs, on a rule someone widened without fixing its examples.
    const m = machine((s) => {
      const rule = s.permissions.ask.find((r) => r.id === 'publishing-needs-a-person');
      if (rule === undefined) throw new Error('the pack lost its publishing rule');
      rule.match = 'bash(npm *)';
    });
    const cli = io(m);
    expect(await run(['policy', 'test'], cli)).toBe(1);
    expect(cli.out()).toContain('publishing-needs-a-person');
    expect(cli.out()).toContain('npm pack');
  }, scaledMs(30_000));

  it('the python3 hook blocks a force-push to main (origin is unchanged) and lets ordinary pushes through', async () => {
    const m = machine();
    const host = await open(m);
    const mainBefore = m.git(m.origin, 'rev-parse', 'main');

    for (const command of ['git push --force origin feature:main', 'git push origin +feature:main', 'git -C . push -f origin HEAD:refs/heads/main', 'git push origin :main']) {
      const r = await call(host, 'bash', { command });
      expect(r.outcome, command).toBe('denied');
      expect(text(r)).toContain("protected branch 'main'");
    }
    // Spellings that hide the branch: the hook refuses rather than guess.
    for (const [command, said] of [
      ['git push --all --force origin', 'every branch'],
      ['git checkout -q main && git push -f origin', 'name the branch explicitly'],
      ['eval "git push -f origin feature:main"', 'hides what it runs'],
    ]) {
      const r = await call(host, 'bash', { command: command! });
      expect(r.outcome, command).toBe('denied');
      expect(text(r)).toContain(said);
    }
    // With no branch named, the branch checked out is the one pushed.
    m.git(m.project, 'checkout', '-q', 'main');
    const bare = await call(host, 'bash', { command: 'git push --force origin' });
    expect(bare.outcome).toBe('denied');
    expect(text(bare)).toContain("protected branch 'main'");
    m.git(m.project, 'checkout', '-q', 'feature');
    expect(m.git(m.origin, 'rev-parse', 'main')).toBe(mainBefore);

    // Ordinary work: a push of the feature branch, and a force-push to it, run and land in origin.
    const push = await call(host, 'bash', { command: 'git push -q origin feature' });
    expect(push.outcome, text(push)).toBe('ok');
    expect(m.git(m.origin, 'rev-parse', 'feature')).toBe(m.git(m.project, 'rev-parse', 'feature'));
    const forced = await call(host, 'bash', { command: 'git push -q --force origin feature' });
    expect(forced.outcome, text(forced)).toBe('ok');
  }, scaledMs(30_000));

  it('the tickets server: list and get work, close_ticket is refused and never reaches the server', async () => {
    const m = machine();
    const host = await open(m);
    const list = await call(host, 'tickets__list_tickets', { status: 'open' });
    expect(list.outcome, text(list)).toBe('ok');
    expect(text(list)).toContain('SEC-101  [open]  Rotate the staging database password');
    expect(text(list)).not.toContain('SEC-103');

    const close = await call(host, 'tickets__close_ticket', { id: 'SEC-101', comment: 'done' });
    expect(close.outcome).toBe('denied');
    expect(text(close)).toContain('closing a ticket changes the tracker');

    const after = await call(host, 'tickets__get_ticket', { id: 'SEC-101' });
    expect(after.outcome).toBe('ok');
    expect(text(after)).toContain('SEC-101  [open]');
  }, scaledMs(30_000));

  it('without the ask rule the close still asks (the server does not mark it read-only); an allow naming it lets it reach the server', async () => {
    const m = machine((s) => {
      s.permissions.ask = s.permissions.ask.filter((r) => r.id !== 'tickets-close-needs-a-person');
    });
    const asking = await open(m);
    const asked = await call(asking, 'tickets__close_ticket', { id: 'SEC-101', comment: 'done' });
    expect(asked.outcome).toBe('denied');
    expect(text(asked)).toContain('default:unknown-effects');
    const m2 = machine((s) => {
      s.permissions.ask = s.permissions.ask.filter((r) => r.id !== 'tickets-close-needs-a-person');
      s.permissions.allow.push({ id: 'tickets-close', match: 'tickets__close_ticket' });
    });
    const host = await open(m2);
    const close = await call(host, 'tickets__close_ticket', { id: 'SEC-101', comment: 'done' });
    expect(close.outcome, text(close)).toBe('ok');
    expect(text(await call(host, 'tickets__get_ticket', { id: 'SEC-101' }))).toContain('SEC-101  [closed]');
  }, scaledMs(30_000));

  it('the audit log records every call, denied ones included, where the settings say', async () => {
    const m = machine();
    const host = await open(m);
    await call(host, 'tickets__list_tickets', {});
    await call(host, 'tickets__close_ticket', { id: 'SEC-102', comment: 'x' });
    await call(host, 'bash', { command: 'git push --force origin feature:main' });
    await host.close();

    const log = join(m.home, '.local', 'state', 'company-airlock', 'audit.jsonl');
    expect(existsSync(log)).toBe(true);
    expect(existsSync(join(m.base, 'state', 'airlock', 'audit'))).toBe(false);
    const records = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const decisions = records.filter((r) => r.type === 'decision').map((r) => [r.tool, r.decision]);
    expect(decisions).toEqual([
      ['tickets__list_tickets', 'allow'],
      ['tickets__close_ticket', 'deny'],
      ['bash', 'deny'],
    ]);
    expect(records.filter((r) => r.type === 'result').map((r) => r.outcome)).toEqual(['ok', 'denied', 'denied']);
    // storeContent is off: a result keeps the hash of what the model saw, not the text.
    expect(JSON.stringify(records)).not.toContain('Rotate the staging database password');

    const cli = io(m);
    expect(await run(['audit', 'verify'], cli)).toBe(0);
  }, scaledMs(30_000));
});

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type IO } from '@airlock/cli';
import { openHost, type Host } from '@airlock/host';
import type { ToolResultMessage } from '@airlock/contract';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';

const PACK = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const CLI = fileURLToPath(new URL('../../../packages/cli/bin/airlock.mjs', import.meta.url));

/**
 * The pack as a team rolls it out: one `airlock extensions add --user ./company-policy` (the real
 * CLI, as a child process, with npm) in a home folder of the test's own, and a git project with a
 * bare "origin" where the agent works. Nothing else is written into the user's settings. Real
 * bash, real python3 hook, real MCP server over stdio. `edit` changes the manifest of a copy of
 * the pack (beside the example, sharing its node_modules) before it is installed.
 */
function machine(edit?: (manifest: Manifest) => void) {
  const base = makeTempDir('airlock-company-policy-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  const origin = join(project, 'origin.git');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(base, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  installIn(home, edit === undefined ? PACK : editedCopy(base, edit));
  const userFile = join(home, '.config', 'airlock', 'settings.json');
  // The install names the package, and only that, in the user's settings.
  expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ extensions: ['airlock-company-policy'] });

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
  return { base, home, project, origin, env, git, userFile };
}

/** `airlock extensions add --user ./<pack>`, run where the pack's folder is, with `home` as HOME. */
function installIn(home: string, pack: string): void {
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const added = spawnSync(process.execPath, [CLI, 'extensions', 'add', '--user', `./${basename(pack)}`], {
    cwd: dirname(pack),
    env: { ...env, npm_config_cache: join(home, '.npm'), npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    timeout: scaledMs(90_000),
  });
  expect(added.status, `${added.stdout}${added.stderr}`).toBe(0);
  expect(added.stdout).toContain('Added airlock-company-policy 1.0.0 to the user settings');
}

/** A copy of the pack with its manifest edited; its node_modules is the example's (npm links a folder, it installs nothing into it). */
function editedCopy(base: string, edit: (manifest: Manifest) => void): string {
  const copy = join(base, 'company-policy');
  mkdirSync(copy);
  for (const part of ['index.mjs', 'README.md', 'hooks', 'mcp']) cpSync(join(PACK, part), join(copy, part), { recursive: true });
  symlinkSync(join(PACK, 'node_modules'), join(copy, 'node_modules'));
  const manifest = JSON.parse(readFileSync(join(PACK, 'package.json'), 'utf8')) as Manifest;
  edit(manifest);
  writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest, null, 2));
  return copy;
}
type Rule = { id: string; match: string };
type Manifest = { airlock: { rules: { ask: Rule[]; allow: Rule[] } } } & Record<string, unknown>;
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
  it('installs with one command: listed for the user with its version, no errors, and `airlock policy test` passes on its rules', async () => {
    const m = machine();
    const host = await open(m);
    expect(host.blocked).toBeUndefined();
    expect(host.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(host.extensions.loaded.map((e) => e.name)).toEqual(expect.arrayContaining(['company-policy', 'command-hooks', 'mcp-tools', 'path-policy', 'audit-log']));

    // What a person sees: the real CLI lists the pack in the user layer with its version.
    const listed = spawnSync(process.execPath, [CLI, 'extensions', '--json'], { cwd: m.project, env: m.env, encoding: 'utf8', timeout: scaledMs(60_000) });
    expect(listed.status, listed.stderr).toBe(0);
    const records = (JSON.parse(listed.stdout) as { extensions: { packageName?: string; layer: string; version?: string; status: string }[] }).extensions;
    expect(records.find((r) => r.packageName === 'airlock-company-policy')).toMatchObject({ layer: 'user', version: '1.0.0', status: 'loaded' });

    const cli = io(m);
    expect(await run(['policy', 'test'], cli)).toBe(0);
    expect(cli.out()).not.toContain('FAIL');
    expect(cli.out()).toContain('6 rules, 6 with examples, 0 failing');
  }, scaledMs(120_000));

  it('`airlock policy explain` names the pack a rule came from and the settings that named it, in words and in JSON', async () => {
    const m = machine();
    const args = JSON.stringify({ path: '.github/workflows/ci.yml', content: 'on: push\n' });
    const text = io(m);
    expect(await run(['policy', 'explain', 'write', args], text)).toBe(0);
    expect(text.out()).toContain(`ci-workflows-are-reviewed`);
    expect(text.out()).toContain(`from airlock-company-policy 1.0.0 (named by user settings ${m.userFile})`);

    const json = io(m);
    expect(await run(['policy', 'explain', '--json', 'write', args], json)).toBe(0);
    const report = JSON.parse(json.out().trim().split('\n').at(-1)!) as { effect: string; matched: { rule: string; layer: string; file: string; package?: { name: string; version: string } }[] };
    expect(report.effect).toBe('deny');
    expect(report.matched.find((r) => r.rule === 'ci-workflows-are-reviewed')).toMatchObject({ layer: 'user', file: m.userFile, package: { name: 'airlock-company-policy', version: '1.0.0' } });
  }, scaledMs(120_000));

  it('`airlock policy test` fails when an inline example no longer holds', async () => {
    // The same check CI runs, on a rule someone widened without fixing its examples.
    const m = machine((s) => {
      const rule = s.airlock.rules.ask.find((r) => r.id === 'publishing-needs-a-person');
      if (rule === undefined) throw new Error('the pack lost its publishing rule');
      rule.match = 'bash(npm *)';
    });
    const cli = io(m);
    expect(await run(['policy', 'test'], cli)).toBe(1);
    expect(cli.out()).toContain('publishing-needs-a-person');
    expect(cli.out()).toContain('npm pack');
  }, scaledMs(120_000));

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
  }, scaledMs(120_000));

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
  }, scaledMs(120_000));

  it('without the ask rule the close still asks (the server does not mark it read-only); an allow naming it lets it reach the server', async () => {
    const m = machine((s) => {
      s.airlock.rules.ask = s.airlock.rules.ask.filter((r) => r.id !== 'tickets-close-needs-a-person');
    });
    const asking = await open(m);
    const asked = await call(asking, 'tickets__close_ticket', { id: 'SEC-101', comment: 'done' });
    expect(asked.outcome).toBe('denied');
    expect(text(asked)).toContain('default:unknown-effects');
    const m2 = machine((s) => {
      s.airlock.rules.ask = s.airlock.rules.ask.filter((r) => r.id !== 'tickets-close-needs-a-person');
      s.airlock.rules.allow.push({ id: 'tickets-close', match: 'tickets__close_ticket' });
    });
    const host = await open(m2);
    const close = await call(host, 'tickets__close_ticket', { id: 'SEC-101', comment: 'done' });
    expect(close.outcome, text(close)).toBe('ok');
    expect(text(await call(host, 'tickets__get_ticket', { id: 'SEC-101' }))).toContain('SEC-101  [closed]');
  }, scaledMs(120_000));

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
  }, scaledMs(120_000));
});

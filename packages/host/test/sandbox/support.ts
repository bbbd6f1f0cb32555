import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { bubblewrapWorks, makeTempDir } from '@airlock/kernel/testing';
import { openHost, type Host, type OpenHostOptions } from '../../src/index.js';

/** Whether bubblewrap can build a sandbox on this machine (checked once, by running it). */
export const bwrapWorks: boolean = bubblewrapWorks();

if (!bwrapWorks) {
  // One loud line, not a silent skip: these tests are the proof that the sandbox holds.
  console.warn('\n!!! SANDBOX TESTS SKIPPED: bubblewrap (bwrap) is missing or cannot start here. Install it: apt-get install bubblewrap socat !!!\n');
}

export const SECRET = 'S3CRET-BYTES-7f1c';
export const API_KEY = 'sk-ant-APIKEY-9d2e';

/**
 * A throw-away machine: a project with a `.env` holding SECRET, a vault folder outside it that a
 * user deny rule hides, a folder `outside` nobody may write, and user settings that allow every
 * bash command (so the OS sandbox, not the shell analysis, is what stands in the way).
 */
export function machine(settings: Record<string, unknown> = {}, allow: string[] = []) {
  const base = makeTempDir('airlock-sandbox-test-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  const outside = join(base, 'outside');
  const vault = join(base, 'vault');
  const config = join(home, '.config', 'airlock');
  for (const d of [project, outside, vault, config]) mkdirSync(d, { recursive: true });
  // Plain bytes, not NAME=value: the redactor would hide an assignment and blur what the sandbox did.
  writeFileSync(join(project, '.env'), `${SECRET}\n`);
  writeFileSync(join(vault, 'token'), `${SECRET}\n`);
  writeFileSync(join(config, 'trust.json'), '{"version":1,"entries":[]}');
  const user = { permissions: { allow: ['bash(*)', ...allow], deny: [`fs.read(/${vault}/**)`] }, ...settings };
  writeFileSync(join(config, 'settings.json'), JSON.stringify(user));
  /**
   * A person's "yes" to exactly these command lines (call before `open`): `bash(*)` does not lift
   * the asks for commands the analysis cannot read, and these tests need them to reach the sandbox.
   * Spelled as the approval prompt saves them (a backslash or `*` escaped, blanks as one space).
   */
  const approve = (...commands: string[]) => {
    user.permissions.allow.push(...commands.map((c) => `bash(${c.trim().replace(/\s+/g, ' ').replace(/[\\*]/g, '\\$&')})`));
    writeFileSync(join(config, 'settings.json'), JSON.stringify(user));
  };
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(base, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin', ANTHROPIC_API_KEY: API_KEY };
  const hosts: Host[] = [];
  return {
    base,
    home,
    project,
    outside,
    vault,
    config,
    env,
    approve,
    async open(options: Partial<OpenHostOptions> = {}): Promise<Host> {
      const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, ...options });
      hosts.push(host);
      return host;
    },
    /** Run one bash command through the whole pipeline; the text the model would get. */
    async bash(host: Host, command: string, timeout?: number) {
      const r = await host.execute({ id: `c${Math.random().toString(36).slice(2)}`, name: 'bash', arguments: { command, ...(timeout === undefined ? {} : { timeout }) } });
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      return { outcome: r.outcome, text, details: r.details as { sandboxed?: boolean; exitCode?: number | null } | undefined };
    },
    async close() {
      for (const h of hosts.splice(0)) await h.close();
    },
  };
}

/** Whether a program runs here (`name args` exits 0), for tests that skip without it. */
export function hasProgram(name: string, ...args: string[]): boolean {
  try {
    execFileSync(name, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Machines made through the returned `setup` are closed after each test. */
export function machinesClosedAfterEach(): (settings?: Record<string, unknown>, allow?: string[]) => ReturnType<typeof machine> {
  const machines: ReturnType<typeof machine>[] = [];
  afterEach(async () => {
    for (const m of machines.splice(0)) await m.close();
  });
  return (settings, allow) => {
    const m = machine(settings, allow);
    machines.push(m);
    return m;
  };
}

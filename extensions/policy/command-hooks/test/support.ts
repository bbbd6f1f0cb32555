import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, vi } from 'vitest';
import { bubblewrapWorks, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { openHost, type Host, type OpenHostOptions } from '@airlock/host';

// Every test opens real hosts and runs real hooks (python3 starts, bubblewrap mounts): on a busy two-core machine that takes seconds.
vi.setConfig({ testTimeout: scaledMs(30_000) });

/** Whether bubblewrap can build a sandbox on this machine (checked once, by running it). */
export const bwrapWorks: boolean = bubblewrapWorks();

/** A value the host's environment holds under a secret-looking name; hooks must never see it. */
export const API_KEY = 'sk-ant-APIKEY-hooks-4c1d';

export type Hooks = Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;

/**
 * A throw-away machine: a home with user settings that load @airlock/command-hooks with `hooks`
 * (and allow every bash command, so the hooks are what stands in the way), a project folder with
 * `.claude/hooks/` for scripts, and a folder outside the project.
 */
export function machine(hooks: Hooks, extra: { options?: Record<string, unknown>; settings?: Record<string, unknown> } = {}) {
  const base = makeTempDir('airlock-hooks-test-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  const outside = join(base, 'outside');
  const config = join(home, '.config', 'airlock');
  const scripts = join(project, '.claude', 'hooks');
  for (const d of [project, outside, config, scripts]) mkdirSync(d, { recursive: true });
  writeFileSync(join(config, 'trust.json'), '{"version":1,"entries":[]}');
  const user = {
    permissions: { allow: ['bash(*)'] },
    extensions: [{ name: '@airlock/command-hooks', options: { hooks, ...extra.options } }],
    ...extra.settings,
  };
  writeFileSync(join(config, 'settings.json'), JSON.stringify(user));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(base, 'state'), PATH: '/usr/local/bin:/usr/bin:/bin', ANTHROPIC_API_KEY: API_KEY };
  const hosts: Host[] = [];
  let n = 0;
  return {
    base,
    home,
    project,
    outside,
    config,
    env,
    /** Write an executable script to `.claude/hooks/<name>`; returns the command Claude Code's docs would write for it. */
    script(name: string, text: string): string {
      const file = join(scripts, name);
      writeFileSync(file, text);
      chmodSync(file, 0o755);
      return `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;
    },
    async open(options: Partial<OpenHostOptions> = {}): Promise<Host> {
      const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, ...options });
      hosts.push(host);
      return host;
    },
    /** Run one call through the whole pipeline: its outcome and the text the model would get. */
    async call(host: Host, name: string, args: Record<string, unknown>) {
      const r = await host.execute({ id: `call-${++n}`, name, arguments: args });
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { outcome: r.outcome, text };
    },
    async close() {
      for (const h of hosts.splice(0)) await h.close();
    },
  };
}

export type Machine = ReturnType<typeof machine>;

/** Machines made through the returned function are closed after each test (their folders go with makeTempDir). */
export function machinesClosedAfterEach(): (...args: Parameters<typeof machine>) => Machine {
  const made: Machine[] = [];
  afterEach(async () => {
    for (const m of made.splice(0)) await m.close();
  });
  return (...args) => {
    const m = machine(...args);
    made.push(m);
    return m;
  };
}

/** One matcher group with one command hook. */
export function on(event: string, matcher: string | undefined, command: string, more: Record<string, unknown> = {}): Hooks {
  return { [event]: [{ ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: 'command', command, ...more }] }] };
}

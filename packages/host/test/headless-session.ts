import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { openHost, type Host } from '../src/index.js';

/**
 * Headless sessions for host tests: a home and a project of their own, user settings with the given
 * permissions and the spill folder inside the temp folder, `interactive: false` (an "ask" is a
 * denial, as in `airlock call` or a headless agent). Hosts are closed after each test.
 *
 * @example
 * const session = headlessSessions('airlock-notices-');
 * const s = await session({ allow: ['bash(*)'] });
 * (await s.call('bash', { command: 'seq 3' })).text // '1\n2\n3'
 */
export function headlessSessions(prefix: string) {
  const hosts: Host[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.close();
  });
  return async (o: { allow: string[]; files?: Record<string, string> }) => {
    const base = makeTempDir(prefix);
    const home = join(base, 'home');
    const project = join(base, 'project');
    const config = join(home, '.config', 'airlock');
    for (const d of [project, config]) mkdirSync(d, { recursive: true });
    for (const [path, text] of Object.entries(o.files ?? {})) {
      mkdirSync(join(base, path, '..'), { recursive: true });
      writeFileSync(join(base, path), text);
    }
    writeFileSync(join(config, 'trust.json'), '{"version":1,"entries":[]}');
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { allow: o.allow }, limits: { spillDir: join(base, 'spill') } }));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(base, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home });
    hosts.push(host);
    let n = 0;
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await host.execute({ id: `c${++n}`, name, arguments: args });
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { outcome: r.outcome, text, last: text.slice(text.lastIndexOf('\n') + 1) };
    };
    return { base, home, project, call };
  };
}

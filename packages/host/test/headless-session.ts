import { afterEach } from 'vitest';
import { headlessMachine } from './headless-machine.js';
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
    const { base, project, home, env } = headlessMachine(prefix, { settings: { permissions: { allow: o.allow } }, ...(o.files === undefined ? {} : { files: o.files }) });
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

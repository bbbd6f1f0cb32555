import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@airlock/kernel/testing';

/**
 * A throw-away machine for a headless host: a temp folder (removed after the test) holding a home
 * with an empty trust store and the given user settings (the spill folder kept inside the temp
 * folder), a project folder, files relative to the temp folder, and the environment that points
 * the host at all of it. Host and serve tests open their hosts on it.
 *
 * @example
 * const m = headlessMachine('airlock-x-', { settings: { permissions: { allow: ['bash(*)'] } }, files: { 'project/a.txt': 'hi' } });
 * const host = await openHost({ cwd: m.project, interactive: false, env: m.env, homeDir: m.home });
 */
export function headlessMachine(prefix: string, o: { settings?: Record<string, unknown>; files?: Record<string, string> } = {}) {
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
  writeFileSync(join(config, 'settings.json'), JSON.stringify({ ...o.settings, limits: { spillDir: join(base, 'spill') } }));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(base, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  return { base, home, project, env };
}

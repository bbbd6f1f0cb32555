import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * A machine for `airlock extensions add/update/remove` tests: a home, a project (a repository
 * with a package.json) and a tool extension `airlock-shout` in a folder beside it; `airlock`
 * runs the CLI in process in the project with npm's cache in that home.
 */

export const SHOUT = `export default {
  name: 'shout',
  setup(api) {
    api.registerTool({
      name: 'shout', label: 'Shout', description: 'Say it loud.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      resources: () => [],
      async execute(_id, { text }) { return { content: [{ type: 'text', text: text.toUpperCase() + '!' }] }; },
    });
  },
};
`;

export function machine(o: { kernel?: string; registry?: string } = {}) {
  const base = makeTempDir('airlock-add-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  const ext = join(base, 'airlock-shout');
  for (const dir of [join(home, '.config', 'airlock'), project, join(ext, 'src')]) mkdirSync(dir, { recursive: true });
  // A project folder is a repository: settings discovery stops at its root.
  mkdirSync(join(project, '.git'));
  writeFileSync(join(project, 'package.json'), '{ "name": "project", "version": "1.0.0", "private": true }\n');
  writeFileSync(
    join(ext, 'package.json'),
    JSON.stringify({ name: 'airlock-shout', version: '0.2.0', type: 'module', airlock: { extension: './src/index.js', kernel: o.kernel ?? '^1.0.0', provides: { tools: ['shout'] } } }),
  );
  writeFileSync(join(ext, 'src/index.js'), SHOUT);
  const airlock = async (args: string[]) => {
    const io = testIO(project, home);
    io.env = { ...io.env, PATH: process.env.PATH, npm_config_cache: join(home, '.npm'), npm_config_update_notifier: 'false', ...(o.registry === undefined ? {} : { npm_config_registry: o.registry }) };
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  /** Everything in the project folder a refused add must leave as it was. */
  const snapshot = () => ({
    packageJson: readFileSync(join(project, 'package.json'), 'utf8'),
    settings: existsSync(join(project, '.airlockrc.json')) ? readFileSync(join(project, '.airlockrc.json'), 'utf8') : undefined,
    nodeModules: existsSync(join(project, 'node_modules')),
    lockfile: existsSync(join(project, 'package-lock.json')),
  });
  return { base, home, project, ext, airlock, snapshot };
}

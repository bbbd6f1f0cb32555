// One fresh process of the SDK bench: open a host (or Pi's tools) and make the first call.
// spec: { side: 'airlock' | 'pi', root (the checkout whose packages/sdk/dist is measured), workspace, home, resultFile }
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { workerMain } from '../lib/harness.mjs';

workerMain(async (spec) => {
  const env = { HOME: spec.home, XDG_CONFIG_HOME: path.join(spec.home, '.config'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR };
  const t0 = performance.now();
  if (spec.side === 'pi') {
    const { pca } = await import('../peer/pi.mjs');
    const t1 = performance.now();
    const tools = [pca.createReadTool, pca.createWriteTool, pca.createEditTool, pca.createBashTool, pca.createGrepTool, pca.createFindTool, pca.createLsTool].map((create) => create(spec.workspace));
    const t2 = performance.now();
    const bash = tools[3];
    await bash.execute('c1', { command: 'true' });
    const t3 = performance.now();
    return { importMs: t1 - t0, openMs: t2 - t1, firstCallMs: t3 - t2, outcome: 'ok' };
  }
  const { openHost } = await import(pathToFileURL(path.join(spec.root, 'packages/sdk/dist/index.js')).href);
  const t1 = performance.now();
  const host = await openHost({ cwd: spec.workspace, interactive: false, env, homeDir: spec.home });
  const t2 = performance.now();
  const result = await host.execute({ id: 'c1', name: 'bash', arguments: { command: 'true' } });
  const t3 = performance.now();
  // jiti's ESM entry requires its CommonJS build, so a loaded jiti shows in the require cache.
  const jiti = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/jiti/'));
  const extensions = Object.fromEntries(host.extensions.loaded.map((e) => [e.name, e.loadMs]));
  await host.close();
  return { importMs: t1 - t0, openMs: t2 - t1, firstCallMs: t3 - t2, outcome: result.outcome, jiti, extensions };
});

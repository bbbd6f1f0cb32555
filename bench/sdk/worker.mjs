// One fresh process of the SDK bench: open a host (or Pi's tools) and make the first call.
// spec: { side: 'airlock' | 'pi', root (the checkout whose packages/sdk/dist is measured), workspace, home, resultFile }
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { workerMain } from '../lib/harness.mjs';

workerMain(async (spec) => {
  const env = { HOME: spec.home, XDG_CONFIG_HOME: path.join(spec.home, '.config'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR };
  // Wall time, and this process's CPU time (user + system), which a busy machine inflates far
  // less: the other processes on the cores show in the wall time only.
  const marks = [];
  const mark = () => marks.push({ wall: performance.now(), cpu: process.cpuUsage() });
  const phases = () => {
    const cpu = (a, b) => (b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system) / 1000;
    const [m0, m1, m2, m3] = marks;
    return { importMs: m1.wall - m0.wall, openMs: m2.wall - m1.wall, firstCallMs: m3.wall - m2.wall, importCpuMs: cpu(m0, m1), openCpuMs: cpu(m1, m2), firstCallCpuMs: cpu(m2, m3) };
  };
  mark();
  if (spec.side === 'pi') {
    const { pca } = await import('../peer/pi.mjs');
    mark();
    const tools = [pca.createReadTool, pca.createWriteTool, pca.createEditTool, pca.createBashTool, pca.createGrepTool, pca.createFindTool, pca.createLsTool].map((create) => create(spec.workspace));
    mark();
    const bash = tools[3];
    await bash.execute('c1', { command: 'true' });
    mark();
    return { ...phases(), outcome: 'ok' };
  }
  const { openHost } = await import(pathToFileURL(path.join(spec.root, 'packages/sdk/dist/index.js')).href);
  mark();
  const host = await openHost({ cwd: spec.workspace, interactive: false, env, homeDir: spec.home });
  mark();
  const result = await host.execute({ id: 'c1', name: 'bash', arguments: { command: 'true' } });
  mark();
  // jiti's ESM entry requires its CommonJS build, so a loaded jiti shows in the require cache.
  const jiti = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/jiti/'));
  const extensions = Object.fromEntries(host.extensions.loaded.map((e) => [e.name, e.loadMs]));
  await host.close();
  return { ...phases(), outcome: result.outcome, jiti, extensions };
});

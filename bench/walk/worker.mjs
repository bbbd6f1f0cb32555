// One host of one build over one workspace: opens it, then times the sandbox's wrap (the walk
// before a command) and release (the walk after it) without running anything. Prints JSON.
// argv: <bundle of the build (bundle.mjs)> <workspace> <idle ms before the first call> <later calls>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [build, cwd, idleArg, laterArg] = process.argv.slice(2);
const { openHost, bundled } = await import(pathToFileURL(build).href);
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'walk-bench-home-'));
const home = path.join(base, 'home');
fs.mkdirSync(path.join(home, '.config', 'airlock'), { recursive: true });
const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(base, 'state'), PATH: process.env.PATH };

const t0 = performance.now();
const host = await openHost({ cwd, interactive: false, env, homeDir: home, bundled });
const openMs = performance.now() - t0;
if (!host.sandbox.service.status.active) throw new Error(`sandbox not active: ${host.sandbox.service.status.problem}`);
const idle = Number(idleArg);
if (idle > 0) await new Promise((r) => setTimeout(r, idle));

// Wall time, and the process's processor time (user + system), which other work on a loaded
// machine disturbs far less than the wall clock.
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function call() {
  const a = performance.now();
  const ca = cpu();
  const cmd = await host.sandbox.service.wrap(['true'], { cwd, env: {} });
  const b = performance.now();
  const cb = cpu();
  await cmd.release();
  const c = performance.now();
  const cc = cpu();
  return { wrap: b - a, release: c - b, wrapCpu: cb - ca, releaseCpu: cc - cb, args: cmd.args.length };
}
const first = await call();
const later = [];
for (let i = 0; i < Number(laterArg); i++) later.push(await call());
await host.close();
fs.rmSync(base, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ openMs, first, later }) + '\n');

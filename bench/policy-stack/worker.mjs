// Policy-stack bench worker: one (checkout, extension set) in this process; see main.mjs.
//
// Opens a host from `spec.root`'s packages/host/dist with an empty HOME whose user settings leave
// out the default guards that this set does not name, then times host.execute of one small call
// (a read of a small file, or a small edit) in a steady loop: no forced GC, so each call pays for
// the garbage it makes, as in a long session.

import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { workerMain } from '../lib/harness.mjs';

const GUARDS = ['@airlock/path-policy', '@airlock/redact-secrets', '@airlock/audit-log', '@airlock/approval', '@airlock/telemetry'];

workerMain(async (spec) => {
  const home = fs.mkdtempSync(path.join(spec.tmp, 'home-'));
  const leftOut = GUARDS.filter((g) => !spec.keep.includes(g)).map((g) => `-${g}`);
  fs.mkdirSync(path.join(home, '.config', 'airlock'), { recursive: true });
  fs.writeFileSync(path.join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: leftOut }));
  const { openHost } = await import(pathToFileURL(path.join(spec.root, 'packages/host/dist/index.js')).href);
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR };
  const host = await openHost({ cwd: spec.workspace, interactive: false, env, homeDir: home });
  if (host.blocked) throw new Error(`host blocked: ${host.blocked.message}`);

  let seq = 0;
  let toggle = false;
  const call = async () => {
    let args;
    if (spec.tool === 'edit') {
      toggle = !toggle;
      args = { path: spec.editFile, edits: [{ oldText: toggle ? 'MARKER_A' : 'MARKER_B', newText: toggle ? 'MARKER_B' : 'MARKER_A' }] };
    } else args = { path: spec.readFile };
    const m = await host.execute({ id: `c${++seq}`, name: spec.tool, arguments: args });
    if (m.isError) throw new Error(`${spec.tool} failed: ${JSON.stringify(m.content).slice(0, 300)}`);
    return m;
  };
  for (let i = 0; i < spec.warmup; i++) await call();
  // spec.profile: a CPU profile of the timed loop alone (start-up, which jiti dominates, left out).
  const session = spec.profile ? new inspector.Session() : undefined;
  const post = (method, params) => new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
  if (session) {
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
  }
  const perCallUs = [];
  for (let b = 0; b < spec.batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < spec.perBatch; i++) await call();
    perCallUs.push(((performance.now() - t0) * 1000) / spec.perBatch);
  }
  if (session) fs.writeFileSync(spec.profile, JSON.stringify((await post('Profiler.stop')).profile));
  const extensions = host.extensions.loaded.map((e) => e.name ?? e.spec ?? '?');
  await host.close();
  return { perCallUs, extensions };
});

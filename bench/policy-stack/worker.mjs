// Policy-stack bench worker: every (checkout, extension set) in this process; see main.mjs.
//
// Opens one host per (checkout, extension set) from the checkout's packages/host/dist, each with an empty HOME
// whose user settings leave out the default guards that the set does not name, then times
// host.execute of one small call (a read of a small file, or a small edit) in steady loops: batches
// of `perBatch` calls, the subjects taking turns batch by batch so that they share the same moments of
// load. No forced GC: each call pays for the garbage it makes, as in a long session.

import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { workerMain } from '../lib/harness.mjs';

const GUARDS = ['@airlock/path-policy', '@airlock/redact-secrets', '@airlock/audit-log', '@airlock/approval', '@airlock/telemetry'];

async function open(spec, root, keep, index, extra = []) {
  const home = fs.mkdtempSync(path.join(spec.tmp, 'home-'));
  const leftOut = [...GUARDS.filter((g) => !keep.includes(g)).map((g) => `-${g}`), ...extra.map((p) => ({ path: p }))];
  fs.mkdirSync(path.join(home, '.config', 'airlock'), { recursive: true });
  fs.writeFileSync(path.join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: leftOut }));
  const { openHost } = await import(pathToFileURL(path.join(root, 'packages/host/dist/index.js')).href);
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR };
  const host = await openHost({ cwd: spec.workspace, interactive: false, env, homeDir: home });
  if (host.blocked) throw new Error(`host blocked: ${host.blocked.message}`);
  const editFile = `edit-${process.pid}-${index}.txt`;
  fs.writeFileSync(path.join(spec.workspace, editFile), `${'x'.repeat(5000)}\nMARKER_A\n${'y'.repeat(5000)}\n`);
  let seq = 0;
  let toggle = false;
  const call = async () => {
    let args;
    if (spec.tool === 'edit') {
      toggle = !toggle;
      args = { path: editFile, edits: [{ oldText: toggle ? 'MARKER_A' : 'MARKER_B', newText: toggle ? 'MARKER_B' : 'MARKER_A' }] };
    } else args = { path: spec.readFile };
    const m = await host.execute({ id: `c${++seq}`, name: spec.tool, arguments: args });
    if (m.isError) throw new Error(`${spec.tool} failed: ${JSON.stringify(m.content).slice(0, 300)}`);
  };
  return { host, call, extensions: host.extensions.loaded.map((e) => e.name ?? '?') };
}

workerMain(async (spec) => {
  const subjects = [];
  // Each checkout's host comes from its own dist and loads its own extension files, so hosts of
  // two checkouts live side by side in one process without sharing a module.
  for (const [i, { root, keep, extra }] of spec.subjects.entries()) subjects.push(await open(spec, root, keep, i, extra));
  for (const s of subjects) for (let i = 0; i < spec.warmup; i++) await s.call();
  // spec.profile: a CPU profile of the timed loops alone (start-up, which jiti dominates, left out).
  const session = spec.profile ? new inspector.Session() : undefined;
  const post = (method, params) => new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
  if (session) {
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
  }
  const perCallUs = subjects.map(() => []);
  for (let b = 0; b < spec.batches; b++) {
    for (const [i, s] of subjects.entries()) {
      const t0 = performance.now();
      for (let k = 0; k < spec.perBatch; k++) await s.call();
      perCallUs[i].push(((performance.now() - t0) * 1000) / spec.perBatch);
    }
  }
  if (session) fs.writeFileSync(spec.profile, JSON.stringify((await post('Profiler.stop')).profile));
  const extensions = subjects.map((s) => s.extensions);
  for (const s of subjects) await s.host.close();
  return { perCallUs, extensions };
});

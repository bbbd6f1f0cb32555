// Telemetry bench worker: one subject in this process. Opens a host the way the product does
// (packages/host/dist, the default extension set) and times host.execute of the small read, one
// call at a time. Subjects: "none" (telemetry left out of the set), "off" (in the set, no
// endpoint: the default), "on" (exporting over OTLP/HTTP protobuf to the receiver main.mjs runs).

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { workerMain } from '../lib/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

workerMain(async (spec) => {
  const { openHost } = await import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href);
  const home = spec.home;
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR };
  if (spec.subject === 'on') env.OTEL_EXPORTER_OTLP_ENDPOINT = spec.endpoint;
  const settings = spec.subject === 'none' ? { extensions: ['-@airlock/telemetry'] } : {};
  const host = await openHost({ cwd: spec.workspace, interactive: false, env, homeDir: home, settings });
  if (host.blocked) throw new Error(`host blocked: ${host.blocked.message}`);
  const call = (i) => host.execute({ id: `c${i}`, name: 'read', arguments: { path: 'small-2000.txt' } });
  for (let i = 0; i < spec.warmup; i++) await call(i);
  const samples = [];
  for (let i = 0; i < spec.reps; i++) {
    const t = process.hrtime.bigint();
    const m = await call(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (m.outcome !== 'ok') throw new Error(`read ended ${m.outcome}`);
  }
  const t = performance.now();
  await host.close();
  const closeMs = performance.now() - t;
  const sdkLoaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache).some((k) => k.includes('@opentelemetry/sdk-trace-base'));
  return { samples, closeMs, sdkLoaded };
});

// The SDK bench: what a program pays to start using Airlock through @airlock/sdk, in fresh
// processes: importing the SDK from packages/sdk/dist, openHost (the whole default set: seven
// tools, four policy extensions, telemetry off) and the first call (`bash true`, which also loads
// the shell parser). Next to Pi: importing pi-coding-agent, creating its seven tools and its
// first `bash true`.
//
//   pnpm bench sdk [--rounds N] [--against <checkout>]... [--no-write]
//
// --against (repeatable) names another checkout (built) measured the same way, interleaved round
// by round with this one, for a before/after in one run. Reported: medians over the rounds.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineInfo, median, round, runWorker } from '../lib/harness.mjs';

export const description = 'openHost through the SDK from dist, and the first bash call, in fresh processes (before/after with --against), next to Pi';
export const usage = 'pnpm bench sdk [--rounds N] [--against <checkout>]... [--no-write]';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const WORKER = path.join(HERE, 'worker.mjs');

function option(argv, name) {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

function options(argv, name) {
  return argv.flatMap((arg, i) => (arg === name && argv[i + 1] !== undefined ? [argv[i + 1]] : []));
}

export async function main(argv) {
  const rounds = Number(option(argv, '--rounds')) || 10;
  const against = options(argv, '--against');
  const write = !argv.includes('--no-write');
  const subjects = [
    ...against.map((root) => ({ name: path.basename(path.resolve(root)), side: 'airlock', root: path.resolve(root) })),
    { name: against.length === 0 ? 'airlock' : 'this checkout', side: 'airlock', root: ROOT },
    { name: 'pi', side: 'pi', root: ROOT },
  ];
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-sdk-bench-'));
  const machine = machineInfo();
  const samples = new Map(subjects.map((s) => [s.name, []]));
  try {
    for (let round_ = 0; round_ < rounds; round_++) {
      for (const s of subjects) {
        // A fresh workspace and home each time: nothing cached from the last process but the OS's file cache.
        const dir = fs.mkdtempSync(path.join(base, 'run-'));
        const workspace = path.join(dir, 'ws');
        const home = path.join(dir, 'home');
        fs.mkdirSync(workspace);
        fs.mkdirSync(path.join(home, '.config'), { recursive: true });
        const r = runWorker(WORKER, { side: s.side, root: s.root, workspace, home, resultFile: path.join(dir, 'result.json') }, { cwd: workspace, timeoutMs: 600_000 });
        if (r.failed) throw new Error(`${s.name} failed: ${r.stderr ?? r.error}`);
        samples.get(s.name).push(r);
        console.error(`[bench:sdk] round ${round_ + 1}/${rounds} ${s.name}: import ${round(r.importMs, 0)} ms, open ${round(r.openMs, 1)} ms (cpu ${round(r.openCpuMs, 1)}), first call ${round(r.firstCallMs, 1)} ms (cpu ${round(r.firstCallCpuMs, 1)})${r.outcome === 'ok' ? '' : ` (${r.outcome})`}`);
      }
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  const rows = subjects.map((s) => {
    const runs = samples.get(s.name);
    const m = (key) => round(median(runs.map((r) => r[key])), 1);
    const extensionNames = Object.keys(runs[0].extensions ?? {});
    return {
      subject: s.name,
      importMs: m('importMs'),
      openMs: m('openMs'),
      firstCallMs: m('firstCallMs'),
      openPlusFirstMs: round(median(runs.map((r) => r.openMs + r.firstCallMs)), 1),
      importCpuMs: m('importCpuMs'),
      openCpuMs: m('openCpuMs'),
      firstCallCpuMs: m('firstCallCpuMs'),
      outcomes: [...new Set(runs.map((r) => r.outcome))],
      jiti: s.side === 'airlock' ? runs.filter((r) => r.jiti).length : undefined,
      extensionsMs: Object.fromEntries(extensionNames.map((n) => [n, round(median(runs.map((r) => r.extensions[n])), 1)])),
    };
  });
  const loadAvgAtEnd = os.loadavg().map((x) => round(x, 2));
  const report = { machine, loadAvgAtEnd, rounds, rows };
  console.log(JSON.stringify(report, null, 2));
  if (write) fs.writeFileSync(path.join(ROOT, 'bench/results/sdk.json'), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

// The telemetry bench: per-call cost of the small read through the whole pipeline with
// OpenTelemetry export on (OTLP/HTTP protobuf to a local receiver), off (the default: in the set,
// no endpoint) and left out of the set. Run through `pnpm bench telemetry`.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDir, machineInfo, median, round } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS = path.join(HERE, '../results/telemetry.md');
const WORKER = path.join(HERE, 'worker.mjs');
const SUBJECTS = ['none', 'off', 'on'];

export const description = 'OpenTelemetry export: per-call cost of the small read (42 KB) with tracing on (local OTLP receiver), off, and left out';

export const usage = `pnpm bench telemetry [options]
  --rounds N   run every subject N times, round-robin (default 5)
  --reps N     timed calls per run (default 300, after 50 warm-up calls)
  --no-write   do not write bench/results/telemetry.md`;

function parseArgs(argv) {
  const opts = { rounds: 5, reps: 300, write: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--rounds') opts.rounds = Number(argv[++i]);
    else if (a === '--reps') opts.reps = Number(argv[++i]);
    else if (a === '--no-write') opts.write = false;
    else throw new Error(`unknown option for the telemetry bench: ${a}\n${usage}`);
  }
  for (const key of ['rounds', 'reps']) if (!(Number.isInteger(opts[key]) && opts[key] > 0)) throw new Error(`--${key} needs a positive integer`);
  return opts;
}

/** The same 2,000-line, 42,000-byte file as the tools bench's small-read row. */
function smallFile() {
  const lines = [];
  for (let i = 0; i < 2000; i++) lines.push(`line ${String(i).padStart(5, '0')} ${'x'.repeat(9)}`);
  return `${lines.join('\n')}\n`;
}

/** A worker as a child process; asynchronous, so this process's receiver keeps answering. */
function runWorker(spec) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', WORKER, JSON.stringify(spec)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !fs.existsSync(spec.resultFile)) return reject(new Error(`worker ${spec.subject} failed (${code}): ${stderr.slice(-2000)}`));
      const result = JSON.parse(fs.readFileSync(spec.resultFile, 'utf8'));
      fs.rmSync(spec.resultFile, { force: true });
      resolve(result);
    });
  });
}

export async function main(argv) {
  const opts = parseArgs(argv);
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-telemetry-'));
  const received = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (d) => (received.bytes += d.length));
    req.on('end', () => {
      received.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${server.address().port}`;
  try {
    const workspace = ensureDir(path.join(base, 'ws'));
    fs.writeFileSync(path.join(workspace, 'small-2000.txt'), smallFile());
    const runs = Object.fromEntries(SUBJECTS.map((s) => [s, []]));
    for (let round = 0; round < opts.rounds; round++) {
      for (const subject of SUBJECTS) {
        const home = ensureDir(path.join(base, `home-${subject}-${round}`));
        const r = await runWorker({ subject, endpoint, workspace, home, warmup: 50, reps: opts.reps, resultFile: path.join(base, `${subject}-${round}.json`) });
        runs[subject].push(r);
        process.stderr.write(`[telemetry] round ${round + 1} ${subject}: median ${round2(median(r.samples))} ms, close ${round2(r.closeMs)} ms, sdk loaded ${r.sdkLoaded}\n`);
      }
    }
    const rows = SUBJECTS.map((subject) => {
      const medians = runs[subject].map((r) => median(r.samples));
      const all = runs[subject].flatMap((r) => r.samples).sort((a, b) => a - b);
      return { subject, median: median(medians), p90: all[Math.floor(all.length * 0.9)], close: median(runs[subject].map((r) => r.closeMs)), sdk: runs[subject].every((r) => r.sdkLoaded) ? 'yes' : runs[subject].some((r) => r.sdkLoaded) ? 'some' : 'no' };
    });
    const none = rows[0].median;
    const table = [
      '| subject | per-call median (ms) | p90 (ms) | vs left out | host.close (ms) | SDK loaded |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows.map((r) => `| ${r.subject} | ${round(r.median, 3)} | ${round(r.p90, 3)} | ${r.subject === 'none' ? '—' : `${r.median >= none ? '+' : ''}${round(((r.median - none) / none) * 100, 1)}%`} | ${round(r.close, 1)} | ${r.sdk} |`),
    ].join('\n');
    const m = machineInfo();
    const report = `# Telemetry bench\n\nThe small read (2,000 lines, 42 KB) through \`host.execute\` with the default extension set, ${opts.rounds} rounds × ${opts.reps} calls per subject (after 50 warm-up calls), subjects interleaved. \`none\`: telemetry left out of the set; \`off\`: in the set without an endpoint (the default); \`on\`: exporting spans, metrics and audit log records over OTLP/HTTP protobuf to a receiver on 127.0.0.1 (${received.requests} requests, ${received.bytes} bytes received). The per-call median is the median of the runs' medians.\n\n${table}\n\nNode ${m.node}, ${m.cpus} × ${m.cpuModel}, load at start ${m.loadAvgAtStart.join(' ')}.\n`;
    process.stdout.write(report);
    if (opts.write) fs.writeFileSync(RESULTS, report);
  } finally {
    server.closeAllConnections();
    server.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

function round2(x) {
  return round(x, 3);
}

// The JSON-RPC door's cost: a `tools/call` round trip of a small read over `airlock serve --stdio`
// (spawned, as a client in another language would use it) next to the same call in-process
// (`host.execute` on a host opened with the same settings), and whether a long run grows.
//
//   pnpm bench serve-rpc [--calls N] [--rounds R] [--heap-rounds H] [--no-write]
//
// Goal (issue 14): round trip ≤ 1.5 × in-process + 1 ms. Both sides run N calls (default 300) after
// 50 untimed warm-ups; reported: median and p90 in ms. Growth: R rounds (default 10) of 100 calls
// in a row on one server; each round's median latency and the server's RSS after it; and the heap
// after full GCs per round (H rounds, default 30) of the same server in a worker run with --expose-gc.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, round } from '../lib/harness.mjs';

export const description = 'tools/call round trip over `airlock serve --stdio` vs in-process host.execute, and 100-call rounds for growth';
export const usage = 'pnpm bench serve-rpc [--calls N] [--rounds R] [--heap-rounds H] [--no-write]';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ROOT = path.dirname(BENCH_DIR);
const AIRLOCK = path.join(ROOT, 'packages/cli/bin/airlock.mjs');
const WARMUP = 50;

const p90 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)];

/** A JSON-lines client of a spawned server: one request at a time, timed from write to answer. */
function rpcClient(child) {
  let rest = '';
  const pending = new Map();
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const message = JSON.parse(line);
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  let id = 0;
  return (method, params) =>
    new Promise((resolve) => {
      const mine = ++id;
      pending.set(mine, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    });
}

const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

export async function main(argv) {
  const calls = Number(argv[argv.indexOf('--calls') + 1]) || 300;
  const rounds = Number(argv[argv.indexOf('--rounds') + 1]) || 10;
  // Longer than the RSS rounds: the heap rises while code and caches warm up, then levels off.
  const heapRounds = Number(argv[argv.indexOf('--heap-rounds') + 1]) || 30;
  const write = !argv.includes('--no-write');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-serve-bench-'));
  const project = path.join(base, 'project');
  const home = path.join(base, 'home');
  for (const dir of [project, path.join(home, '.config', 'airlock')]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(project, 'small.txt'), 'a small file\nof three\nlines\n');
  fs.writeFileSync(path.join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ limits: { spillDir: path.join(base, 'spill') } }));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(base, 'state'), NO_COLOR: '1' };
  const call = { name: 'read', arguments: { path: 'small.txt' } };

  let child;
  try {
    // In-process: the same host the CLI opens, without the channel.
    const { openHost } = await import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href);
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home });
    const inProcess = [];
    try {
      for (let i = 0; i < WARMUP + calls; i++) {
        const t0 = performance.now();
        const r = await host.execute({ id: `c${i}`, ...call });
        if (i >= WARMUP) inProcess.push(performance.now() - t0);
        if (r.outcome !== 'ok') throw new Error(`in-process read failed: ${JSON.stringify(r.content)}`);
      }
    } finally {
      await host.close();
    }

    child = spawn(process.execPath, [AIRLOCK, '--cwd', project, 'serve', '--stdio'], { cwd: project, env, stdio: ['pipe', 'pipe', 'inherit'] });
    const request = rpcClient(child);
    const overRpc = [];
    for (let i = 0; i < WARMUP + calls; i++) {
      const t0 = performance.now();
      const answer = await request('tools/call', call);
      if (i >= WARMUP) overRpc.push(performance.now() - t0);
      if (answer.result?.outcome !== 'ok') throw new Error(`rpc read failed: ${JSON.stringify(answer)}`);
    }
    const growth = [];
    for (let r = 0; r < rounds; r++) {
      const times = [];
      for (let i = 0; i < 100; i++) {
        const t0 = performance.now();
        await request('tools/call', call);
        times.push(performance.now() - t0);
      }
      growth.push({ round: r + 1, medianMs: round(median(times), 3), rssMiB: round(rssOf(child.pid), 1) });
    }
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
    // The heap after full GCs, round by round, of the same server in a process that may force GC.
    const worker = spawnSync(process.execPath, ['--expose-gc', path.join(BENCH_DIR, 'serve/rpc-heap-worker.mjs'), project, home, path.join(base, 'state'), String(heapRounds)], { env, encoding: 'utf8' });
    if (worker.status !== 0) throw new Error(`the heap worker failed: ${worker.stderr}`);
    const heap = JSON.parse(worker.stdout.trim().split('\n').at(-1));

    const inMedian = median(inProcess);
    const rpcMedian = median(overRpc);
    const goalMs = 1.5 * inMedian + 1;
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}`,
      calls,
      inProcess: { medianMs: round(inMedian, 3), p90Ms: round(p90(inProcess), 3) },
      rpc: { medianMs: round(rpcMedian, 3), p90Ms: round(p90(overRpc), 3) },
      goalMs: round(goalMs, 3),
      meetsGoal: rpcMedian <= goalMs,
      growth,
      heap,
    };
    const md = render(report);
    console.log(md);
    if (write) {
      fs.writeFileSync(path.join(BENCH_DIR, 'results/serve-rpc.json'), `${JSON.stringify(report, null, 2)}\n`);
      fs.writeFileSync(path.join(BENCH_DIR, 'results/serve-rpc.md'), md);
    }
  } finally {
    child?.kill('SIGKILL');
    fs.rmSync(base, { recursive: true, force: true });
  }
}

function render(r) {
  const first = r.growth[0];
  const last = r.growth.at(-1);
  return [
    `# airlock serve --stdio: tools/call round trip (${r.date.slice(0, 10)}, Node ${r.node}, ${r.machine})`,
    '',
    `A read of a 3-line file, ${r.calls} calls after ${WARMUP} warm-ups, one at a time.`,
    '',
    '| path | median ms | p90 ms |',
    '| --- | --- | --- |',
    `| in-process \`host.execute\` | ${r.inProcess.medianMs} | ${r.inProcess.p90Ms} |`,
    `| \`tools/call\` over \`airlock serve --stdio\` (spawned, JSON lines) | ${r.rpc.medianMs} | ${r.rpc.p90Ms} |`,
    '',
    `Goal ≤ 1.5 × in-process + 1 ms = ${r.goalMs} ms: ${r.meetsGoal ? 'met' : 'NOT met'}.`,
    '',
    `Growth, ${r.growth.length} rounds of 100 calls in a row on one server: median ${first.medianMs} ms → ${last.medianMs} ms, server RSS ${first.rssMiB} MiB → ${last.rssMiB} MiB.`,
    '',
    '| round | median ms | server RSS MiB |',
    '| --- | --- | --- |',
    ...r.growth.map((g) => `| ${g.round} | ${g.medianMs} | ${g.rssMiB} |`),
    '',
    `RSS alone cannot tell a leak from garbage not yet collected: the same server (the library over in-memory streams, in a process run with --expose-gc), heap after two full GCs after each round of 100 calls: ${r.heap[0].heapMiB} MiB → ${r.heap.at(-1).heapMiB} MiB.`,
    '',
    '| round | heap after GC MiB | median ms |',
    '| --- | --- | --- |',
    ...r.heap.map((h) => `| ${h.round} | ${h.heapMiB} | ${h.medianMs} |`),
    '',
  ].join('\n');
}

// The MCP bench: a `tools/call` round trip for a small read through `airlock mcp` over stdio,
// next to the same call made in-process with `host.execute`, and 100-call rounds in one server
// to show that neither latency nor memory grows.
//
//   pnpm bench mcp [--calls N] [--rounds R] [--no-write]
//
// The client is a bare JSON-lines loop (what a host in any language would write): it sends one
// request and waits for the line with its id, so the time is the server's plus the pipe's, not an
// SDK's. Goal (issue 14): round trip ≤ 1.5 × in-process + 1 ms.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, round } from '../lib/harness.mjs';

export const description = '`airlock mcp`: tools/call round trip over stdio vs in-process host.execute, and 100-call rounds (latency, memory)';
export const usage = 'pnpm bench mcp [--calls N] [--rounds R] [--no-write]';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ROOT = path.dirname(BENCH_DIR);
const AIRLOCK = path.join(ROOT, 'packages/cli/bin/airlock.mjs');

export async function main(argv) {
  const option = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) || fallback : fallback);
  const calls = option('--calls', 100);
  const rounds = option('--rounds', 10);
  const write = !argv.includes('--no-write');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-mcp-bench-'));
  const project = path.join(base, 'project');
  const home = path.join(base, 'home');
  for (const dir of [project, path.join(home, '.config')]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(project, 'small.txt'), 'a small file\n'.repeat(20));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.state'), NO_COLOR: '1' };
  const read = { name: 'read', arguments: { path: 'small.txt' } };
  try {
    const inProcess = await inProcessTimes(project, env, read, calls * 2);
    const served = await mcpRounds(project, env, read, calls, rounds);
    const report = summarize(inProcess, served, calls);
    const md = render(report);
    console.log(md);
    if (write) {
      fs.writeFileSync(path.join(BENCH_DIR, 'results/mcp.json'), `${JSON.stringify(report, null, 2)}\n`);
      fs.writeFileSync(path.join(BENCH_DIR, 'results/mcp.md'), md);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/** host.execute of the same call in this process, after a warm-up: ms per call. */
async function inProcessTimes(project, env, call, n) {
  const { openHost } = await import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href);
  const host = await openHost({ cwd: project, interactive: false, env, homeDir: env.HOME });
  try {
    for (let i = 0; i < 50; i++) await host.execute({ id: `w${i}`, ...call });
    const times = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const result = await host.execute({ id: `c${i}`, ...call });
      times.push(performance.now() - t0);
      if (result.outcome !== 'ok') throw new Error(`in-process read: ${result.outcome}`);
    }
    return times;
  } finally {
    await host.close();
  }
}

/** One `airlock mcp` process: a warm-up, then `rounds` rounds of `calls` calls in a row. */
async function mcpRounds(project, env, call, calls, rounds) {
  const heapFile = path.join(path.dirname(project), 'heap');
  const probe = path.join(path.dirname(fileURLToPath(import.meta.url)), 'heap-probe.cjs');
  const child = spawn(process.execPath, [AIRLOCK, '--cwd', project, 'mcp'], {
    env: { ...env, NODE_OPTIONS: `--expose-gc --require ${probe}`, AIRLOCK_BENCH_HEAP_FILE: heapFile },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      const mine = ++id;
      waiting.set(mine, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    });
  try {
    await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    for (let i = 0; i < 50; i++) await request('tools/call', call);
    const out = [];
    for (let r = 0; r < rounds; r++) {
      const times = [];
      for (let i = 0; i < calls; i++) {
        const t0 = performance.now();
        const reply = await request('tools/call', call);
        times.push(performance.now() - t0);
        if (reply.result?.isError !== false) throw new Error(`mcp read: ${JSON.stringify(reply).slice(0, 300)}`);
      }
      out.push({ times, rssMb: rssMb(child.pid), heapMb: await heapMb(child, heapFile) });
    }
    return out;
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
  }
}

/** The server's heap in use after a full GC (see heap-probe.cjs). */
async function heapMb(child, file) {
  fs.rmSync(file, { force: true });
  child.kill('SIGUSR2');
  for (let i = 0; i < 200 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 10)); // the write may still be going on
  return round(Number(fs.readFileSync(file, 'utf8')) / 1024 / 1024, 2);
}

/** Resident memory of a process, from /proc (Linux); undefined elsewhere. */
function rssMb(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return round(kb / 1024, 1);
  } catch {
    return undefined;
  }
}

function summarize(inProcess, served, calls) {
  const inMs = median(inProcess);
  const all = served.flatMap((r) => r.times);
  const mcpMs = median(all);
  const goalMs = 1.5 * inMs + 1;
  return {
    date: new Date().toISOString(),
    node: process.version,
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}`,
    callsPerRound: calls,
    inProcessMedianMs: round(inMs, 3),
    mcpMedianMs: round(mcpMs, 3),
    goalMs: round(goalMs, 3),
    pass: mcpMs <= goalMs,
    rounds: served.map((r, i) => ({ round: i + 1, medianMs: round(median(r.times), 3), p95Ms: round(p95(r.times), 3), rssMb: r.rssMb, heapMb: r.heapMb })),
  };
}

function p95(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
}

function render(r) {
  return [
    '# MCP bench: `airlock mcp` over stdio vs in-process `host.execute`',
    '',
    `${r.date} · Node ${r.node} · ${r.machine}`,
    '',
    'A `read` of a 260-byte file, the default extension set (7 tools, 4 policy extensions), one call at a time.',
    '',
    '| path | median ms per call |',
    '|---|---:|',
    `| in-process \`host.execute\` | ${r.inProcessMedianMs} |`,
    `| \`tools/call\` over stdio (\`airlock mcp\`) | ${r.mcpMedianMs} |`,
    '',
    `Goal ≤ 1.5 × in-process + 1 ms = ${r.goalMs} ms → **${r.pass ? 'PASS' : 'MISS'}**`,
    '',
    `${r.callsPerRound} calls in a row per round, one server process:`,
    '',
    '| round | median ms | p95 ms | server heap MB after a full GC | server RSS MB |',
    '|---:|---:|---:|---:|---:|',
    ...r.rounds.map((x) => `| ${x.round} | ${x.medianMs} | ${x.p95Ms} | ${x.heapMb} | ${x.rssMb ?? ''} |`),
    '',
  ].join('\n');
}

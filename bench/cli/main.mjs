// The CLI bench: wall time of whole `airlock` processes, from spawn to exit, as a user waits for
// them — next to the Pi CLI's own start-up on the same machine in the same run.
//
//   pnpm bench cli [--runs N]
//
// Each command runs N times (default 15, interleaved round by round) after 2 untimed warm-ups (the file-system cache and
// jiti's transpile cache warm up as they would on a developer machine), in a throw-away project
// with its own HOME and XDG_CONFIG_HOME. Reported: median and min-max wall ms.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, round } from '../lib/harness.mjs';

export const description = 'Wall time of `airlock call read` (default set) and other whole CLI runs, next to the Pi CLI start-up';
export const usage = `pnpm bench cli [--runs N] [--no-write]`;

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ROOT = path.dirname(BENCH_DIR);
const AIRLOCK = path.join(ROOT, 'packages/cli/bin/airlock.mjs');
const PI = path.join(BENCH_DIR, 'peer/node_modules/@mariozechner/pi-coding-agent/dist/cli.js');
const TARGET_MS = 300;

export async function main(argv) {
  const runs = Number(argv[argv.indexOf('--runs') + 1]) || 15;
  const write = !argv.includes('--no-write');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-cli-bench-'));
  const project = path.join(base, 'project');
  const withExt = path.join(base, 'with-extension');
  const home = path.join(base, 'home');
  for (const dir of [project, withExt, path.join(home, '.config')]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(withExt, '.airlockrc.json'), JSON.stringify({ extensions: [{ path: path.join(ROOT, 'examples/hello-tool') }] }));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PI_CODING_AGENT_DIR: path.join(home, '.pi'), PI_OFFLINE: '1', NO_COLOR: '1' };

  const subjects = [
    { name: 'airlock call read (default set: 7 tools, 4 policy extensions)', cwd: project, args: [AIRLOCK, 'call', 'read', '{"path":"README.md"}'], target: true },
    // The first bash call of a process also loads the shell parser (tree-sitter WASM) for path-policy.
    { name: 'airlock call bash echo (default set; loads the shell parser)', cwd: project, args: [AIRLOCK, 'call', 'bash', '{"command":"echo hi"}'] },
    { name: 'airlock call hello (a TypeScript extension via jiti)', cwd: withExt, args: [AIRLOCK, '--trust', 'call', 'hello', '{"name":"Ada"}'] },
    { name: 'airlock --version', cwd: project, args: [AIRLOCK, '--version'] },
    // Lists the commands the default extensions bring (audit, policy), so it opens the host.
    { name: 'airlock --help', cwd: project, args: [AIRLOCK, '--help'] },
    { name: 'airlock call --help', cwd: project, args: [AIRLOCK, 'call', '--help'] },
    { name: 'airlock tools (default set)', cwd: project, args: [AIRLOCK, 'tools'] },
    // The floor: Node starting and leaving with nothing to run (issue 25's goal is ≤ 1.5× this).
    { name: 'node -e 0', cwd: project, args: ['-e', '0'] },
    { name: 'pi --version', cwd: project, args: [PI, '--version'], peer: true },
    { name: 'pi --help', cwd: project, args: [PI, '--help'], peer: true },
  ];
  const results = [];
  try {
    for (const s of subjects) {
      if (s.peer && !fs.existsSync(PI)) throw new Error(`Pi is not installed in bench/peer (run without --no-install)`);
      for (let i = 0; i < 2; i++) spawnSync(process.execPath, s.args, { cwd: s.cwd, env, stdio: 'ignore' });
    }
    // Round by round, every subject once per round (alternating the order): a change in the
    // machine's load during the run then shifts every row alike instead of a few.
    const times = new Map(subjects.map((s) => [s, []]));
    for (let i = 0; i < runs; i++) {
      for (const s of i % 2 === 0 ? subjects : [...subjects].reverse()) {
        const start = performance.now();
        const r = spawnSync(process.execPath, s.args, { cwd: s.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        times.get(s).push(performance.now() - start);
        if (r.error) throw r.error;
      }
    }
    for (const s of subjects) {
      const t = times.get(s);
      results.push({ subject: s.name, medianMs: round(median(t), 1), minMs: round(Math.min(...t), 1), maxMs: round(Math.max(...t), 1), runs, peer: !!s.peer, target: !!s.target });
      console.error(`[bench:cli] ${s.name}: ${round(median(t), 1)} ms`);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  const pi = results.find((r) => r.subject === 'pi --version');
  const node = results.find((r) => r.subject === 'node -e 0');
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}`,
    targetMs: TARGET_MS,
    results: results.map((r) => ({ ...r, ratioToPiVersion: pi && !r.peer ? round(r.medianMs / pi.medianMs, 2) : undefined, ratioToNode: node ? round(r.medianMs / node.medianMs, 2) : undefined })),
  };
  const md = render(report);
  console.log(md);
  if (write) {
    fs.writeFileSync(path.join(BENCH_DIR, 'results/cli.json'), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(BENCH_DIR, 'results/cli.md'), md);
  }
}

function render(r) {
  const lines = [
    '# CLI bench: whole `airlock` runs vs the Pi CLI',
    '',
    `${r.date} · Node ${r.node} · ${r.machine}`,
    '',
    'Wall time from spawn to exit, median of the runs after 2 warm-ups. Ratios = ÷ `pi --version` and ÷ `node -e 0` (lower is better).',
    '',
    '| command | median ms | min–max ms | runs | ÷ pi --version | ÷ node -e 0 |',
    '|---|---:|---:|---:|---:|---:|',
    ...r.results.map((x) => `| ${x.subject} | ${x.medianMs} | ${x.minMs}–${x.maxMs} | ${x.runs} | ${x.ratioToPiVersion ?? ''} | ${x.ratioToNode ?? ''} |`),
    '',
    ...r.results.filter((x) => x.target).map((x) => `Target ≤ ${r.targetMs} ms for ${x.subject}: ${x.medianMs} ms → **${x.medianMs <= r.targetMs ? 'PASS' : 'MISS'}**`),
    '',
  ];
  return lines.join('\n');
}

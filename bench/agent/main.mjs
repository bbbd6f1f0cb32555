// The agent bench: the cost of Airlock's agent loop per turn next to Pi's runAgentLoop, both fed
// a scripted model and a no-op tool. Run through `pnpm bench agent` (bench/run.mjs builds the
// workspace and installs Pi first).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarizeProfile } from '../lib/cpuprofile.mjs';
import { ensureDir, machineInfo, median, relativeToCwd, round, runWorker } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BENCH_DIR = path.resolve(HERE, '..');
const ROOT = path.resolve(BENCH_DIR, '..');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const WORKERS = { airlock: path.join(HERE, 'airlock-worker.mjs'), pi: path.join(HERE, 'pi-worker.mjs') };

export const description = "Airlock's agent loop per turn vs Pi's runAgentLoop (scripted model, no-op tool: 100 turns of 1 call, 1 turn of 100 calls)";

export const usage = `pnpm bench agent [options]
  --quick            ~30 s smoke run: 1 round, fewer repetitions
  --rounds N         run every worker N times round-robin (default 3; quick: 1)
  --profile          instead of the bench: run each Airlock workload under node --cpu-prof and print the hot spots
  --no-gc            skip the forced full GC before each timed run (steady state; writes agent-nogc.{json,md})
  --no-write         do not write bench/results/agent.{json,md}`;

function parseArgs(argv) {
  const opts = { quick: false, rounds: undefined, profile: false, write: true, gc: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.quick = true;
    else if (a === '--rounds') opts.rounds = Number(argv[++i]);
    else if (a === '--profile') opts.profile = true;
    else if (a === '--no-write') opts.write = false;
    else if (a === '--no-gc') opts.gc = false;
    else throw new Error(`unknown option for the agent bench: ${a}\n${usage}`);
  }
  if (opts.rounds !== undefined && !(Number.isInteger(opts.rounds) && opts.rounds > 0)) throw new Error('--rounds needs a positive integer');
  return opts;
}

/** Each workload divides a run's time by `per` (turns or calls); `empty` is the fixed cost of one run. */
const WORKLOADS = [
  { id: 'turns100', title: '100 turns of one tool call each, then a final answer', turns: 100, calls: 1, per: 100, unit: 'turn' },
  { id: 'calls100', title: 'one turn of 100 tool calls, then a final answer', turns: 1, calls: 100, per: 100, unit: 'call' },
  { id: 'empty', title: 'a final answer alone (the fixed cost of one run)', turns: 0, calls: 0, per: 1, unit: 'run' },
];

/** Compared in pairs: the same kind of model stream on both sides. */
const SUBJECTS = [
  { key: 'airlock.scripted', side: 'airlock', provider: 'scripted', versus: 'pi.faux' },
  { key: 'pi.faux', side: 'pi', provider: 'faux' },
  { key: 'airlock.direct', side: 'airlock', provider: 'direct', versus: 'pi.direct' },
  { key: 'pi.direct', side: 'pi', provider: 'direct' },
];

export async function main(argv) {
  const opts = parseArgs(argv);
  if (opts.profile) return profile();
  const plan = opts.quick ? { warmup: 20, minReps: 10, maxReps: 200, budgetMs: 300 } : { warmup: 60, minReps: 30, maxReps: 600, budgetMs: 1_500 };
  const rounds = opts.rounds ?? (opts.quick ? 1 : 3);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-agent-'));
  const started = Date.now();
  const machine = machineInfo();
  const samples = new Map();
  const details = new Map();
  const problems = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? SUBJECTS : [...SUBJECTS].reverse();
      for (const w of WORKLOADS) {
        for (const s of order) {
          const key = `${w.id}/${s.key}`;
          const spec = { turns: w.turns, calls: w.calls, provider: s.provider, ...plan, gcBetweenReps: opts.gc, resultFile: path.join(tmp, `${w.id}-${s.key}-${round}.json`) };
          console.error(`[bench:agent] round ${round + 1}/${rounds} ${key}`);
          const result = runWorker(WORKERS[s.side], spec, { cwd: ROOT });
          if (result.failed) {
            problems.push(`${key}: worker failed (${result.status}): ${result.stderr}`);
            continue;
          }
          for (const p of result.problems) problems.push(`${key}: ${p}`);
          samples.set(key, [...(samples.get(key) ?? []), ...result.runUs]);
          details.set(key, result);
        }
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const figure = (w, s) => {
    const runs = samples.get(`${w.id}/${s.key}`) ?? [];
    const run = median(runs);
    const empty = median(samples.get(`empty/${s.key}`) ?? []);
    return { runs: runs.length, min: Math.min(...runs) / w.per, max: Math.max(...runs) / w.per, raw: run / w.per, net: w.id === 'empty' ? run : (run - empty) / w.per };
  };
  const rows = [];
  for (const w of WORKLOADS) {
    for (const s of SUBJECTS) {
      const f = figure(w, s);
      const peer = s.versus === undefined ? undefined : figure(w, SUBJECTS.find((x) => x.key === s.versus));
      rows.push({
        workload: w.id,
        unit: w.unit,
        subject: s.key,
        ...Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round(v, 2)])),
        ratio: peer === undefined ? undefined : round(f.raw / peer.raw, 2),
        ratioNet: peer === undefined || w.id === 'empty' ? undefined : round(f.net / peer.net, 2),
        events: details.get(`${w.id}/${s.key}`)?.observed?.eventsPerRun,
        peakRssMB: details.get(`${w.id}/${s.key}`)?.peakRssMB,
      });
    }
  }
  const versions = {
    pi: JSON.parse(fs.readFileSync(path.join(BENCH_DIR, 'peer/node_modules/@mariozechner/pi-agent-core/package.json'), 'utf8')).version,
    agent: JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/agent/package.json'), 'utf8')).version,
  };
  const report = { date: new Date(started).toISOString(), seconds: round((Date.now() - started) / 1000, 0), machine, versions, plan, rounds, gc: opts.gc, rows, problems };
  const md = markdown(report);
  process.stdout.write(`${md}\n`);
  if (opts.write) {
    ensureDir(RESULTS_DIR);
    // A --no-gc run (steady state) is kept beside the default one, never compared with it.
    const name = opts.gc ? 'agent' : 'agent-nogc';
    fs.writeFileSync(path.join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(RESULTS_DIR, `${name}.md`), `${md}\n`);
    console.error(`[bench:agent] wrote ${relativeToCwd(path.join(RESULTS_DIR, `${name}.md`))}`);
  }
  if (problems.length > 0) process.exitCode = 1;
}

function markdown(r) {
  const out = [
    '# Agent loop bench',
    '',
    `${r.date} · Node ${r.machine.node} · ${r.machine.cpus} x ${r.machine.cpuModel} · load at start ${r.machine.loadAvgAtStart.join(' ')} · ${r.seconds} s · Pi agent-core ${r.versions.pi} · @airlock/agent ${r.versions.agent} · ${r.rounds} round(s)${r.gc ? ', forced GC before each timed run' : ', no forced GC (steady state)'}`,
    '',
    'Both loops run the same conversation against a no-op tool (`{ path: "x" }`, validated on both sides) with a counting no-op event listener. Airlock runs each batch through the full kernel pipeline (`kernelRunner`); Pi runs its own tool execution. "scripted" / "faux" stream one delta per block; "direct" hands each message over at once (start + done), so only the loops\' own work is left.',
    '',
    'µs per turn (`turns100`), per call (`calls100`) or per run (`empty`): median [min–max] over all pooled runs. **net** subtracts the same subject\'s `empty` run (the fixed cost of starting and ending a run). Ratio = Airlock ÷ Pi for the same kind of stream (lower is better; ≤ 1 meets the goal).',
    '',
    '| workload | subject | µs | min–max | net µs | ÷ Pi | ÷ Pi (net) | events/run | runs | peak RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of r.rows) {
    out.push(`| ${row.workload} | ${row.subject} | ${row.raw} | ${row.min}–${row.max} | ${row.net} | ${row.ratio ?? ''} | ${row.ratioNet ?? ''} | ${row.events ?? ''} | ${row.runs} | ${row.peakRssMB ?? ''} |`);
  }
  out.push('');
  const goal = r.rows.filter((row) => row.ratio !== undefined && row.workload !== 'empty');
  out.push(`Goal (at or below Pi): ${goal.map((row) => `${row.workload} ${row.subject} ${row.ratio <= 1 ? 'PASS' : 'MISS'} (${row.ratio})`).join(' · ')}`);
  if (r.problems.length > 0) out.push('', '**Problems:**', ...r.problems.map((p) => `- ${p}`));
  return out.join('\n');
}

async function profile() {
  const dir = ensureDir(path.join(RESULTS_DIR, 'profiles'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-agent-prof-'));
  try {
    for (const w of WORKLOADS.filter((x) => x.id !== 'empty')) {
      for (const provider of ['scripted', 'direct']) {
        const name = `agent-${w.id}-${provider}`;
        const spec = { turns: w.turns, calls: w.calls, provider, warmup: 50, minReps: 200, maxReps: 2_000, budgetMs: 3_000, gcBetweenReps: false, resultFile: path.join(tmp, `${name}.json`) };
        const result = runWorker(WORKERS.airlock, spec, { cwd: ROOT, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `${name}.cpuprofile`, '--cpu-prof-interval', '200'] });
        if (result.failed) {
          console.error(`[bench:agent] profile ${name}: FAILED\n${result.stderr}`);
          continue;
        }
        const summary = summarizeProfile(path.join(dir, `${name}.cpuprofile`), { focusDir: path.join(ROOT, 'packages/agent/dist'), top: 15 });
        process.stdout.write(`## ${name}: ${round(median(result.runUs) / w.per, 2)} µs/${w.unit}\n\n${summary}\n\n`);
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

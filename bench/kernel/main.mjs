// The kernel bench: Airlock's tool-call pipeline next to Pi's agent loop, on no-op tools.
// Run through `pnpm bench kernel` (bench/run.mjs builds the kernel and installs Pi first).

import { createHash } from 'node:crypto';
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
const KERNEL_DIR = path.join(ROOT, 'packages/kernel');
const CACHE_DIR = path.join(BENCH_DIR, '.cache');
const AIRLOCK_WORKER = path.join(HERE, 'airlock-worker.mjs');
const PI_WORKER = path.join(HERE, 'pi-worker.mjs');

export const description = 'Airlock kernel per-call overhead vs Pi agentLoop (no-op tool; 0 and 10+10 handlers; 100-call batch and 10,000 sequential calls)';

export const usage = `pnpm bench kernel [options]
  --quick            ~20 s smoke run: 1 round, fewer repetitions, 2,000 instead of 10,000 sequential calls
  --rounds N         run every worker N times round-robin (default 3; quick: 1)
  --only a,b         only these workloads (batch100, batch100_h10, batch100_write_first[_h10], batch100_undeclared_h10,
                     seq10k, seq10k_h10; quick: seq2k…)
  --pi-entry E       runAgentLoop (default: callback sink, like Pi's own Agent) or agentLoop (for-await over its EventStream)
  --no-gc            skip the forced full GC before each timed run (steady-state numbers; the default forces one)
  --profile          instead of the bench: run each Airlock workload under node --cpu-prof and print the hot spots
  --no-write         do not write bench/results/kernel.{json,md}`;

const TARGET_US = 10;

function parseArgs(argv) {
  const opts = { quick: false, rounds: undefined, only: undefined, piEntry: 'runAgentLoop', profile: false, write: true, gc: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') opts.quick = true;
    else if (a === '--rounds') opts.rounds = Number(value());
    else if (a === '--only') opts.only = value().split(',').filter(Boolean);
    else if (a === '--pi-entry') opts.piEntry = value();
    else if (a === '--profile') opts.profile = true;
    else if (a === '--no-write') opts.write = false;
    else if (a === '--no-gc') opts.gc = false;
    else throw new Error(`unknown option for the kernel bench: ${a}\n${usage}`);
  }
  if (opts.rounds !== undefined && !(Number.isInteger(opts.rounds) && opts.rounds > 0)) throw new Error('--rounds needs a positive integer');
  if (!['runAgentLoop', 'agentLoop'].includes(opts.piEntry)) throw new Error('--pi-entry must be runAgentLoop or agentLoop');
  return opts;
}

const shortCount = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** Repetition plans per worker: warm-ups, then timed runs until minReps and the time budget are met. */
function plans(quick) {
  return quick
    ? {
        rounds: 1,
        batchN: 100,
        seqN: 2_000,
        batch: { warmup: 30, minReps: 8, maxReps: 100, budgetMs: 150 },
        empty: { warmup: 30, minReps: 8, maxReps: 100, budgetMs: 150 },
        seq: { warmup: 1, minReps: 3, maxReps: 6, budgetMs: 200 },
        seqFaux: { warmup: 1, minReps: 2, maxReps: 2, budgetMs: 0 },
      }
    : {
        rounds: 3,
        batchN: 100,
        seqN: 10_000,
        batch: { warmup: 100, minReps: 30, maxReps: 400, budgetMs: 1_000 },
        empty: { warmup: 100, minReps: 30, maxReps: 400, budgetMs: 800 },
        seq: { warmup: 1, minReps: 4, maxReps: 12, budgetMs: 1_800 },
        // Pi + faux at 10,000 calls takes ~1.5 s and ~750 MB a run (quadratic streaming).
        seqFaux: { warmup: 1, minReps: 3, maxReps: 3, budgetMs: 0 },
      };
}

function defineWorkloads(p) {
  const seqId = `seq${shortCount(p.seqN)}`;
  const batch = (id, handlers) => ({
    id,
    title: `${p.batchN} no-op calls in one batch, ${handlers ? `${handlers} tool_call + ${handlers} tool_result handlers` : '0 handlers'}`,
    n: p.batchN,
    handlers,
    subjects: [
      { key: 'airlock.batch', side: 'airlock', kind: 'batch', mode: 'parallel', plan: p.batch },
      { key: 'pi', side: 'pi', kind: 'loop', provider: 'faux', mode: 'parallel', plan: p.batch, baseline: 'pi_empty' },
      { key: 'pi.direct', side: 'pi', kind: 'loop', provider: 'direct', mode: 'parallel', plan: p.batch, baseline: 'pi_direct_empty' },
    ],
  });
  const seq = (id, handlers) => ({
    id,
    title: `${p.seqN.toLocaleString('en-US')} sequential no-op calls, ${handlers ? `${handlers} tool_call + ${handlers} tool_result handlers` : '0 handlers'}`,
    n: p.seqN,
    handlers,
    subjects: [
      { key: 'airlock.loop', side: 'airlock', kind: 'loop', mode: 'sequential', plan: p.seq },
      { key: 'airlock.batch', side: 'airlock', kind: 'batch', mode: 'sequential', plan: p.seq },
      { key: 'pi', side: 'pi', kind: 'loop', provider: 'faux', mode: 'sequential', plan: p.seqFaux, baseline: 'pi_empty' },
      { key: 'pi.direct', side: 'pi', kind: 'loop', provider: 'direct', mode: 'sequential', plan: p.seq, baseline: 'pi_direct_empty' },
    ],
  });
  // Airlock only: the cost of re-judging calls that follow one that may change the filesystem.
  const recheck = (id, handlers, mix, title) => ({
    id,
    title: `${p.batchN} no-op calls in one batch, ${title}, ${handlers ? `${handlers} tool_call + ${handlers} tool_result handlers` : '0 handlers'}`,
    n: p.batchN,
    handlers,
    mix,
    // The batch of only reads that the same handlers run: the re-check ratio divides by it.
    versus: `batch${p.batchN}${handlers ? `_h${handlers}` : ''}`,
    subjects: [{ key: 'airlock.batch', side: 'airlock', kind: 'batch', mode: 'parallel', plan: p.batch }],
  });
  const writeFirst = 'the first one declares fs.write, so the other 99 wait for it and are judged again';
  const undeclared = 'none declares resources, so each waits for the one before and is judged again';
  return [
    batch(`batch${p.batchN}`, 0),
    batch(`batch${p.batchN}_h10`, 10),
    recheck(`batch${p.batchN}_write_first`, 0, 'write-first', writeFirst),
    recheck(`batch${p.batchN}_write_first_h10`, 10, 'write-first', writeFirst),
    recheck(`batch${p.batchN}_undeclared_h10`, 10, 'undeclared', undeclared),
    seq(seqId, 0),
    seq(`${seqId}_h10`, 10),
  ];
}

function defineBaselines(p) {
  return [
    { id: 'pi_empty', title: 'Pi + faux provider, the same script with zero tool calls (one turn, final text only)', side: 'pi', kind: 'empty', provider: 'faux', n: 0, handlers: 0, mode: 'parallel', plan: p.empty },
    { id: 'pi_direct_empty', title: 'Pi + direct stream, the same script with zero tool calls', side: 'pi', kind: 'empty', provider: 'direct', n: 0, handlers: 0, mode: 'parallel', plan: p.empty },
  ];
}

export async function main(argv) {
  const opts = parseArgs(argv);
  const p = plans(opts.quick);
  const rounds = opts.rounds ?? p.rounds;
  let workloads = defineWorkloads(p);
  if (opts.only) {
    const unknown = opts.only.filter((id) => !workloads.some((w) => w.id === id));
    if (unknown.length) throw new Error(`unknown workload(s): ${unknown.join(', ')}; available: ${workloads.map((w) => w.id).join(', ')}`);
    workloads = workloads.filter((w) => opts.only.includes(w.id));
  }
  if (opts.profile) return profile(workloads);

  const baselines = defineBaselines(p);

  // One job = one (workload, subject) or one baseline; each runs in its own child per round.
  const jobs = [
    ...workloads.flatMap((w) =>
      w.subjects.map((s) => ({ id: `${w.id}:${s.key}`, workload: w.id, subject: s.key, side: s.side, kind: s.kind, provider: s.provider, n: w.n, handlers: w.handlers, mix: w.mix, mode: s.mode, plan: s.plan })),
    ),
    ...baselines.map((b) => ({ id: `baseline:${b.id}`, workload: null, subject: b.id, side: b.side, kind: b.kind, provider: b.provider, n: b.n, handlers: b.handlers, mode: b.mode, plan: b.plan })),
  ];

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-kernel-'));
  const log = (...a) => console.error('[bench:kernel]', ...a);
  // Others may rebuild packages/kernel/dist while this runs: every Airlock worker imports one
  // snapshot of it, taken now.
  const snapshot = snapshotKernel();
  const dropSnapshot = () => {
    fs.rmSync(snapshot.dir, { recursive: true, force: true });
    if (fs.existsSync(CACHE_DIR) && fs.readdirSync(CACHE_DIR).length === 0) fs.rmdirSync(CACHE_DIR);
  };
  process.once('exit', dropSnapshot);
  process.once('SIGINT', () => process.exit(130));
  log(`kernel dist ${snapshot.sha1.slice(0, 12)} snapshotted to ${relativeToCwd(snapshot.dir)}`);
  const started = performance.now();
  const startedAt = new Date();
  const machine = machineInfo();
  log(`${opts.quick ? 'quick' : 'full'} run: ${jobs.length} workers x ${rounds} round(s), Node ${process.version}, ${machine.cpus} CPUs, load ${machine.loadAvgAtStart.join(' ')}`);

  const runs = new Map(jobs.map((j) => [j.id, []]));
  const failures = [];
  for (let roundNo = 1; roundNo <= rounds; roundNo++) {
    // Alternate which side goes first so that slow drift on a shared machine is not one-sided.
    const ordered = roundNo % 2 === 1 ? jobs : [...jobs].sort((a, b) => (a.side === b.side ? 0 : a.side === 'pi' ? -1 : 1));
    for (const job of ordered) {
      const t0 = performance.now();
      const spec = {
        kind: job.kind,
        n: job.n,
        handlers: job.handlers,
        mix: job.mix,
        mode: job.mode,
        provider: job.provider,
        piEntry: opts.piEntry,
        ...job.plan,
        gcBetweenReps: opts.gc,
        resultFile: path.join(tmp, `${job.id.replace(/[^a-z0-9_]+/gi, '-')}-${roundNo}.json`),
      };
      const env = job.side === 'pi' ? { PI_OFFLINE: '1', PI_CODING_AGENT_DIR: path.join(tmp, 'pi-agent-dir') } : { AIRLOCK_BENCH_KERNEL_ENTRY: snapshot.entry };
      const result = runWorker(job.side === 'pi' ? PI_WORKER : AIRLOCK_WORKER, spec, { cwd: ROOT, env });
      const wall = Math.round(performance.now() - t0);
      if (result.failed) {
        failures.push({ job: job.id, round: roundNo, ...result });
        log(`[${roundNo}/${rounds}] ${job.id}: FAILED (exit ${result.status}${result.signal ? `, ${result.signal}` : ''})\n${result.stderr}`);
        continue;
      }
      runs.get(job.id).push(result);
      const perCall = job.n > 0 ? `${round(median(result.runUs) / job.n, 2)} us/call` : `${round(median(result.runUs), 1)} us/run`;
      log(`[${roundNo}/${rounds}] ${job.id}: ${perCall} (${result.runUs.length} reps, peak RSS ${result.peakRssMB} MB, ${wall} ms wall)${result.problems.length ? `  PROBLEMS: ${result.problems.join('; ')}` : ''}`);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  dropSnapshot();
  const distAfter = hashDist(path.join(KERNEL_DIR, 'dist'));
  const kernelDist = { sha1: snapshot.sha1, changedDuringRun: distAfter !== snapshot.sha1 };
  if (kernelDist.changedDuringRun) log('note: packages/kernel/dist was rebuilt during the run; all Airlock workers used the snapshot taken at the start');

  const report = buildReport({ opts, p, rounds, workloads, baselines, jobs, runs, failures, machine, startedAt, kernelDist, totalMs: performance.now() - started });
  const markdown = renderMarkdown(report);
  process.stdout.write(`\n${markdown}\n`);
  if (opts.write) {
    ensureDir(RESULTS_DIR);
    // The two GC modes answer different questions, so each keeps its own result files.
    const base = opts.gc ? 'kernel' : 'kernel-nogc';
    fs.writeFileSync(path.join(RESULTS_DIR, `${base}.json`), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(RESULTS_DIR, `${base}.md`), markdown);
    log(`wrote ${relativeToCwd(path.join(RESULTS_DIR, `${base}.json`))} and ${base}.md`);
  }
  log(`done in ${(report.totalMs / 1000).toFixed(1)} s`);
  if (failures.length) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// kernel snapshot

function distFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(full);
    }
  };
  walk(dir);
  return out.sort();
}

/** Fingerprint of the built JavaScript (not the .d.ts or maps). */
function hashDist(dir) {
  const hash = createHash('sha1');
  for (const file of distFiles(dir).filter((f) => f.endsWith('.js'))) {
    hash.update(path.relative(dir, file));
    hash.update('\0');
    hash.update(fs.readFileSync(file));
  }
  return hash.digest('hex');
}

/**
 * Copy packages/kernel/dist (with its package.json, for "type": "module") into bench/.cache and
 * link the kernel's node_modules next to it, so that bare imports (typebox, tapable) resolve to
 * the very same files.
 */
function snapshotKernel() {
  const liveDist = path.join(KERNEL_DIR, 'dist');
  if (!fs.existsSync(path.join(liveDist, 'index.js'))) throw new Error(`${relativeToCwd(liveDist)}/index.js is missing: build the kernel first (pnpm -s build)`);
  const sha1 = hashDist(liveDist);
  ensureDir(CACHE_DIR);
  const dir = fs.mkdtempSync(path.join(CACHE_DIR, 'kernel-'));
  fs.cpSync(liveDist, path.join(dir, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(KERNEL_DIR, 'package.json'), path.join(dir, 'package.json'));
  fs.symlinkSync(path.join(KERNEL_DIR, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  if (hashDist(path.join(dir, 'dist')) !== sha1) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error('packages/kernel/dist changed while it was being copied; run the bench again');
  }
  return { dir, sha1, entry: path.join(dir, 'dist/index.js') };
}

// ---------------------------------------------------------------------------------------------
// aggregation

function stats(values) {
  if (!values.length) return null;
  return { medianUs: round(median(values), 3), minUs: round(Math.min(...values), 3), maxUs: round(Math.max(...values), 3), samples: values.length };
}

function pooled(results) {
  return results.flatMap((r) => r.runUs);
}

function describeRuns(results) {
  const warnings = new Map();
  for (const r of results) {
    for (const w of r.warnings) {
      const key = `${w.name}: ${w.message}`;
      warnings.set(key, (warnings.get(key) ?? 0) + w.count);
    }
  }
  const last = results.at(-1);
  return {
    reps: results.map((r) => r.runUs.length),
    warmupRunsPerRound: last.warmup,
    roundMedianRunUs: results.map((r) => round(median(r.runUs), 1)),
    peakRssMB: round(median(results.map((r) => r.peakRssMB)), 1),
    peakRssMaxMB: round(Math.max(...results.map((r) => r.peakRssMB)), 1),
    rssAfterImportMB: round(median(results.map((r) => r.rssAfterImportMB)), 1),
    importMs: round(median(results.map((r) => r.importMs)), 1),
    entry: last.entry,
    ...(last.hookWiring ? { hookWiring: last.hookWiring } : {}),
    observed: last.observed,
    processWarnings: [...warnings].map(([message, count]) => ({ message, count })),
    problems: [...new Set(results.flatMap((r) => r.problems))],
  };
}

function buildReport({ opts, p, rounds, workloads, baselines, jobs, runs, failures, machine, startedAt, kernelDist, totalMs }) {
  const byId = (id) => runs.get(id) ?? [];
  const baselineRun = {};
  const baselineOut = {};
  for (const b of baselines) {
    const results = byId(`baseline:${b.id}`);
    if (!results.length) continue;
    const all = pooled(results);
    baselineRun[b.id] = median(all);
    baselineOut[b.id] = {
      title: b.title,
      callsInScript: b.kind === 'empty' ? 0 : b.n,
      perRun: stats(all),
      ...(b.n > 0 ? { perCall: stats(all.map((x) => x / b.n)) } : {}),
      ...describeRuns(results),
    };
  }

  const out = {};
  for (const w of workloads) {
    const subjects = {};
    for (const s of w.subjects) {
      const results = byId(`${w.id}:${s.key}`);
      if (!results.length) {
        subjects[s.key] = { failed: true };
        continue;
      }
      const all = pooled(results);
      const entry = { perCall: stats(all.map((x) => x / w.n)), perRun: stats(all), ...describeRuns(results) };
      if (s.side === 'pi') {
        entry.provider = results.at(-1).provider;
        const base = baselineRun[s.baseline];
        if (base !== undefined) entry.perCallNetOfLoopBaseline = { baseline: s.baseline, baselineRunUs: round(base, 1), ...stats(all.map((x) => (x - base) / w.n)) };
      }
      subjects[s.key] = entry;
    }
    const pi = subjects.pi;
    const piDirect = subjects['pi.direct'];
    const ratio = (a, b) => (b === undefined || b === null ? null : round(a / b, 3));
    const ratios = {};
    for (const [key, entry] of Object.entries(subjects)) {
      if (!key.startsWith('airlock') || !entry.perCall) continue;
      const a = entry.perCall.medianUs;
      ratios[key] = {
        vsPiRaw: ratio(a, pi?.perCall?.medianUs),
        vsPiNetOfLoopBaseline: ratio(a, pi?.perCallNetOfLoopBaseline?.medianUs),
        vsPiDirectNetOfLoopBaseline: ratio(a, piDirect?.perCallNetOfLoopBaseline?.medianUs),
      };
    }
    out[w.id] = { title: w.title, calls: w.n, handlersPerHook: w.handlers, subjects, ratiosAirlockOverPi: ratios };
  }

  // Re-check cost: a batch whose calls are judged again ÷ the batch of only reads, same handlers.
  const recheckCost = [];
  for (const w of workloads) {
    if (w.versus === undefined) continue;
    const a = out[w.id]?.subjects['airlock.batch']?.perCall?.medianUs;
    const b = out[w.versus]?.subjects['airlock.batch']?.perCall?.medianUs;
    recheckCost.push({ workload: w.id, versus: w.versus, medianUs: a ?? null, versusMedianUs: b ?? null, ratio: a === undefined || b === undefined ? null : round(a / b, 3) });
  }

  const targetChecks = [];
  for (const w of workloads) {
    if (w.handlers < 10) continue;
    for (const [key, entry] of Object.entries(out[w.id].subjects)) {
      if (!key.startsWith('airlock') || !entry.perCall) continue;
      targetChecks.push({ workload: w.id, subject: key, medianUs: entry.perCall.medianUs, verdict: entry.perCall.medianUs <= TARGET_US ? 'PASS' : 'MISS' });
    }
  }

  const warningsBySide = { airlock: [], pi: [] };
  for (const job of jobs) {
    for (const r of byId(job.id)) for (const w of r.warnings) warningsBySide[job.side].push({ job: job.id, name: w.name, message: w.message, count: w.count });
  }
  const maxListeners = Object.fromEntries(
    Object.entries(warningsBySide).map(([side, list]) => {
      const hits = list.filter((w) => w.name === 'MaxListenersExceededWarning');
      return [side, { printed: hits.length > 0, jobs: [...new Set(hits.map((h) => h.job))], example: hits[0]?.message }];
    }),
  );

  return {
    bench: 'kernel',
    date: startedAt.toISOString(),
    mode: opts.quick ? 'quick' : 'full',
    rounds,
    machine,
    versions: versions(),
    kernelDist,
    piEntry: opts.piEntry,
    gcBetweenReps: opts.gc,
    method: methodNotes(p, opts),
    target: { description: `<= ${TARGET_US} us per call with 10 tool_call + 10 tool_result handlers (informational, never fails the run)`, thresholdUs: TARGET_US, checks: targetChecks },
    workloads: out,
    recheckCost,
    baselines: baselineOut,
    maxListenersExceededWarning: maxListeners,
    processWarnings: warningsBySide,
    failures,
    totalMs: Math.round(totalMs),
  };
}

function readVersion(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')).version;
  } catch {
    return null;
  }
}

function versions() {
  const peer = path.join(BENCH_DIR, 'peer/node_modules');
  return {
    '@airlock/kernel': readVersion(path.join(ROOT, 'packages/kernel/package.json')),
    'typebox (kernel)': readVersion(path.join(ROOT, 'packages/kernel/node_modules/typebox/package.json')),
    '@mariozechner/pi-agent-core': readVersion(path.join(peer, '@mariozechner/pi-agent-core/package.json')),
    '@mariozechner/pi-ai': readVersion(path.join(peer, '@mariozechner/pi-ai/package.json')),
    '@mariozechner/pi-coding-agent': readVersion(path.join(peer, '@mariozechner/pi-coding-agent/package.json')),
    'typebox (pi)': readVersion(path.join(peer, 'typebox/package.json')),
  };
}

function methodNotes(p, opts) {
  return {
    processes: 'Every (workload, subject) pair and every baseline runs in its own `node --expose-gc` child; the whole list runs `rounds` times round-robin (side order alternating per round) and samples are pooled.',
    repetitions: `Per child: warm-up runs first (untimed), then timed runs${opts.gc ? ' with a forced full GC (untimed) before each' : ' back to back (--no-gc: no forced GC)'}. Plans: batch ${JSON.stringify(p.batch)}, sequential ${JSON.stringify(p.seq)}, sequential Pi+faux ${JSON.stringify(p.seqFaux)}, empty baseline ${JSON.stringify(p.empty)}; past minReps a child stops once budgetMs of wall time (timed runs plus their GCs) is used.`,
    perCall: 'us/call = wall time of one run / number of calls in it; median, min and max over all pooled runs.',
    tool: 'A no-op tool with parameters Type.Object({ path: Type.String() }) called with { path: "x" } (so argument validation runs on both sides); execute resolves { content: [{ type: "text", text: "ok" }] } at once. On the Airlock side it declares resources [{ kind: "fs.read", path }] like the built-in read, so a batch runs its calls side by side; the *_write_first workloads make the first call a twin that declares fs.write (the other 99 wait for it and are judged again), *_undeclared a twin that declares no resources (every call waits for the one before and is judged again).',
    airlock: 'Imports the built kernel (packages/kernel/dist). "airlock.batch": one kernel.executeBatch(calls, { signal, executionMode, onEvent }); "airlock.loop": kernel.executeToolCall(call, { signal, onEvent }) awaited once per call. Handlers: N tool_call + N tool_result no-op handlers in phase "transform". onEvent is a counting no-op; a fresh AbortController per run.',
    pi: `Pi has no public single-call API: each run is one agent-loop run scripted to emit one assistant message with N tool calls, then a final text ("pi": pi-ai's faux provider, one delta per content block; "pi.direct": a scripted streamFn that hands over each message at once, a start and a done event). Entry: ${opts.piEntry === 'agentLoop' ? 'agentLoop() consumed with for-await' : 'runAgentLoop() with a counting no-op emit callback (the engine behind agentLoop(), and what Pi\'s own Agent class uses), the counterpart of Airlock\'s onEvent'}; AbortSignal passed. Sequential workloads set toolExecution: "sequential". Handlers: a real ExtensionRunner with N synthetic extensions, each with one no-op tool_call and one no-op tool_result handler, wired into beforeToolCall/afterToolCall like AgentSession does.`,
    piRaw: "\"pi raw\" = run / N with the faux provider: includes its streaming of the N tool calls (quadratic in N in pi-ai 0.73.1: every toolcall_start copies the partial content array and every event carries a copy of the partial message), its usage estimate (serializes the whole context on each turn), the second turn and the loop's bookkeeping.",
    piNetOfLoopBaseline: '"pi −loop" = (run - median run of pi_empty) / N: takes out the fixed cost of one loop run with zero tool calls, not the per-call streaming.',
    piDirect: '"pi.direct −loop" = (run - median run of pi_direct_empty) / N with the direct stream: no provider streaming at all, so what is left is the loop\'s per-call work (events, validation, hooks, execute, result messages). This is the fairest column for comparing pipelines: Airlock has no provider in its loop either.',
    ratios: 'Airlock median / Pi median, per call (lower is better; < 1 means Airlock is faster).',
    rss: 'peakRssMB = process.resourceUsage().maxRSS of the child, including what importing the subject costs (rssAfterImportMB).',
  };
}

// ---------------------------------------------------------------------------------------------
// rendering

const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
const fmtUs = (x) => (x === null || x === undefined ? '–' : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

export function renderMarkdown(r) {
  const lines = [];
  lines.push(`# Kernel bench: Airlock vs Pi (${r.mode}, ${r.rounds} round${r.rounds > 1 ? 's' : ''}${r.gcBetweenReps ? '' : ', no forced GC between runs'})`);
  lines.push('');
  lines.push(`${r.date} · Node ${r.machine.node} · ${r.machine.cpus} x ${r.machine.cpuModel} · ${r.machine.memGB} GB · load at start ${r.machine.loadAvgAtStart.join(' ')} · ${(r.totalMs / 1000).toFixed(0)} s`);
  lines.push(`Pi: pi-agent-core ${r.versions['@mariozechner/pi-agent-core']}, pi-ai ${r.versions['@mariozechner/pi-ai']}, pi-coding-agent ${r.versions['@mariozechner/pi-coding-agent']} · Airlock: @airlock/kernel ${r.versions['@airlock/kernel']} (built dist, sha1 ${r.kernelDist.sha1.slice(0, 12)}${r.kernelDist.changedDuringRun ? '; the live dist was rebuilt during the run, the snapshot taken at the start was measured' : ''})`);
  lines.push('');
  lines.push('µs per call: median [min–max] over all pooled runs. Ratio = Airlock ÷ Pi (lower is better). Pi with the faux provider is shown raw and net of its zero-call loop baseline (−loop); "pi.direct" is Pi\'s loop fed by a non-streaming scripted streamFn, net of its own zero-call baseline: the fairest column.');
  lines.push('');
  lines.push('| workload | subject | µs/call median | min–max | runs | peak RSS MB (after import) | ÷ Pi raw | ÷ Pi −loop | ÷ Pi.direct −loop |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [id, w] of Object.entries(r.workloads)) {
    for (const [key, s] of Object.entries(w.subjects)) {
      if (s.failed) {
        lines.push(`| ${id} | ${key} | FAILED | | | | | | |`);
        continue;
      }
      const rss = `${fmt(s.peakRssMB, 0)} (${fmt(s.rssAfterImportMB, 0)})`;
      const ratio = w.ratiosAirlockOverPi[key];
      const row = (label, st, withRss, ratios) =>
        `| ${id} | ${label} | ${fmtUs(st.medianUs)} | ${fmtUs(st.minUs)}–${fmtUs(st.maxUs)} | ${st.samples} | ${withRss ? rss : ''} | ${ratios ? fmt(ratios.vsPiRaw) : ''} | ${ratios ? fmt(ratios.vsPiNetOfLoopBaseline) : ''} | ${ratios ? fmt(ratios.vsPiDirectNetOfLoopBaseline) : ''} |`;
      if (key === 'pi') {
        lines.push(row('pi raw', s.perCall, true));
        if (s.perCallNetOfLoopBaseline) lines.push(row('pi −loop', s.perCallNetOfLoopBaseline, false));
      } else if (key === 'pi.direct') {
        if (s.perCallNetOfLoopBaseline) lines.push(row('pi.direct −loop', s.perCallNetOfLoopBaseline, true));
        else lines.push(row('pi.direct raw', s.perCall, true));
      } else {
        lines.push(row(key, s.perCall, true, ratio));
      }
    }
  }
  lines.push('');
  lines.push('Pi baselines (zero tool calls, per run):');
  lines.push('');
  lines.push('| baseline | µs/run median | min–max | runs | peak RSS MB |');
  lines.push('|---|---:|---:|---:|---:|');
  for (const [id, b] of Object.entries(r.baselines)) {
    lines.push(`| ${id} | ${fmtUs(b.perRun.medianUs)} | ${fmtUs(b.perRun.minUs)}–${fmtUs(b.perRun.maxUs)} | ${b.perRun.samples} | ${fmt(b.peakRssMB, 0)} |`);
  }
  lines.push('');
  if (r.recheckCost.length) {
    lines.push('Re-check cost (airlock.batch µs/call ÷ the same batch of only reads, same handlers; see docs/kernel.md "Batches"):');
    lines.push('');
    for (const c of r.recheckCost) lines.push(`- ${c.workload}: ${fmtUs(c.medianUs)} ÷ ${c.versus} ${fmtUs(c.versusMedianUs)} = **${fmt(c.ratio)}×**`);
    lines.push('');
  }
  lines.push(`Target ${r.target.description}:`);
  for (const c of r.target.checks) lines.push(`- ${c.workload} ${c.subject}: ${fmtUs(c.medianUs)} µs/call → **${c.verdict}**`);
  lines.push('');
  const ml = r.maxListenersExceededWarning;
  const mlText = (side) => (ml[side].printed ? `YES in ${ml[side].jobs.join(', ')} (“${ml[side].example}”)` : 'no');
  lines.push(`MaxListenersExceededWarning printed: Airlock ${mlText('airlock')}; Pi ${mlText('pi')}.`);
  const other = [...r.processWarnings.airlock, ...r.processWarnings.pi].filter((w) => w.name !== 'MaxListenersExceededWarning');
  if (other.length) lines.push(`Other process warnings: ${[...new Set(other.map((w) => `${w.job}: ${w.name}: ${w.message}`))].join(' · ')}`);
  const problems = [];
  for (const [id, w] of Object.entries(r.workloads)) for (const [key, s] of Object.entries(w.subjects)) for (const pr of s.problems ?? []) problems.push(`${id} ${key}: ${pr}`);
  for (const [id, b] of Object.entries(r.baselines)) for (const pr of b.problems ?? []) problems.push(`${id}: ${pr}`);
  if (problems.length) lines.push(`**Correctness problems:** ${problems.join(' · ')}`);
  if (r.failures.length) lines.push(`**Failed workers:** ${r.failures.map((f) => `${f.job} (round ${f.round})`).join(', ')}`);
  lines.push('');
  lines.push('What each side measures:');
  lines.push('');
  lines.push(`- Airlock: ${r.method.airlock}`);
  lines.push(`- Pi: ${r.method.pi}`);
  lines.push(`- ${r.method.piRaw}`);
  lines.push(`- ${r.method.piNetOfLoopBaseline}`);
  lines.push(`- ${r.method.piDirect}`);
  lines.push(`- ${r.method.rss}`);
  lines.push('- Noisy shared machine: compare only numbers from the same run.');
  lines.push('');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// profiling

async function profile(workloads) {
  const dir = ensureDir(path.join(RESULTS_DIR, 'profiles'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-prof-'));
  const kernelDist = path.join(ROOT, 'packages/kernel/dist');
  for (const w of workloads) {
    for (const s of w.subjects.filter((x) => x.side === 'airlock')) {
      const name = `${w.id}-${s.key.replace('.', '-')}`;
      for (const f of fs.readdirSync(dir)) if (f.startsWith(`${name}.`)) fs.rmSync(path.join(dir, f));
      const plan = w.n >= 1000 ? { warmup: 1, minReps: 10, maxReps: 20, budgetMs: 3_000 } : { warmup: 200, minReps: 500, maxReps: 5_000, budgetMs: 3_000 };
      const spec = { kind: s.kind, n: w.n, handlers: w.handlers, mix: w.mix, mode: s.mode, ...plan, gcBetweenReps: false, resultFile: path.join(tmp, `${name}.json`) };
      const result = runWorker(AIRLOCK_WORKER, spec, { cwd: ROOT, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `${name}.cpuprofile`, '--cpu-prof-interval', '200'] });
      if (result.failed) {
        console.error(`[bench:kernel] profile ${name}: FAILED\n${result.stderr}`);
        continue;
      }
      const file = path.join(dir, `${name}.cpuprofile`);
      const summary = summarizeProfile(file, { focusDir: kernelDist, top: 15 });
      const text = [`## ${name}: ${round(median(result.runUs) / w.n, 2)} us/call (${result.runUs.length} runs while profiling)`, '', summary, ''].join('\n');
      fs.writeFileSync(path.join(dir, `${name}.txt`), text);
      process.stdout.write(`${text}\n`);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  console.error(`[bench:kernel] profiles in ${relativeToCwd(dir)}`);
}

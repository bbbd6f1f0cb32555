// `pnpm bench sandbox`: where a sandboxed `bash true` spends its time, step by step, and how
// the sandbox's cost grows with the workspace. Subjects run in turn, one child process each per
// round (worker.mjs), so a second tree (--base, e.g. a worktree at an older commit) is measured
// interleaved with this one: before and after in one run.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDir, machineInfo, median, relativeToCwd, round, runWorker } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const WORKER = path.join(HERE, 'worker.mjs');
const RESULTS_DIR = path.join(ROOT, 'bench/results');

export const description = "sandboxed bash `true` step by step (spawn, post-exit, decision, hooks, walk) and the workspace-size curve, beside Pi's bash";
export const usage = `pnpm bench sandbox [options]
  --base DIR     also measure the tree at DIR (built; e.g. a worktree at the starting commit) as "before", interleaved
  --rounds N     rounds of every subject (default 3)
  --reps N       timed calls per subject and round (default 20)
  --sizes list   workspace sizes for the curve, comma-separated (default empty,1k,10k,50k,deep30; "none" to skip)
  --command C    the command of the breakdown (default true)
  --no-write     do not write bench/results/sandbox.{json,md}`;

function parseArgs(argv) {
  const opts = { rounds: 3, reps: 20, sizes: ['empty', '1k', '10k', '50k', 'deep30'], command: 'true', write: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--base') opts.base = path.resolve(value());
    else if (a === '--rounds') opts.rounds = Number(value());
    else if (a === '--reps') opts.reps = Number(value());
    else if (a === '--sizes') {
      const v = value();
      opts.sizes = v === 'none' ? [] : v.split(',');
    }
    else if (a === '--command') opts.command = value();
    else if (a === '--no-write') opts.write = false;
    else throw new Error(`unknown option ${a}\n${usage}`);
  }
  return opts;
}

/** Files spread 100 to a folder (like a source tree), or one chain of 30 folders. */
function makeWorkspace(dir, size) {
  fs.mkdirSync(dir, { recursive: true });
  if (size === 'empty') return;
  if (size === 'deep30') {
    let d = dir;
    for (let i = 0; i < 30; i++) {
      d = path.join(d, `level${i}`);
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'file.txt'), 'x\n');
    }
    return;
  }
  const count = Number(size.replace(/k$/, '')) * (size.endsWith('k') ? 1000 : 1);
  for (let i = 0; i < count; i += 100) {
    const d = path.join(dir, `pkg${Math.floor(i / 1000)}`, `dir${i}`);
    fs.mkdirSync(d, { recursive: true });
    for (let j = i; j < Math.min(i + 100, count); j++) fs.writeFileSync(path.join(d, `f${j}.ts`), 'export {};\n');
  }
}

const STEPS = [
  ['total', 'whole call (host.execute)'],
  ['decision', 'until the tool runs (policy decision)'],
  ['beforeWrap', 'tool, until the wrap (or the spawn)'],
  ['wrap', 'profile and mount walk (wrap)'],
  ['wrapToSpawn', 'wrap to spawn'],
  ['spawnCall', 'spawn() itself (fork of the host)'],
  ['spawnToExit', 'spawn → exit (launcher, bwrap, shell)'],
  ['exitToClose', 'exit → pipes closed'],
  ['postExit', 'post-exit (leftover check, output end)'],
  ['release', 'release (walk after, guarded files)'],
  ['result', 'result text'],
  ['resultHooks', 'result hooks (after the tool)'],
];

export async function main(argv) {
  const opts = parseArgs(argv);
  const log = (...a) => console.error('[bench:sandbox]', ...a);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-sandbox-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const machine = machineInfo();
  const trees = [{ subject: 'airlock', root: ROOT }, ...(opts.base === undefined ? [] : [{ subject: 'before', root: opts.base }])];
  for (const t of trees) if (!fs.existsSync(path.join(t.root, 'packages/host/dist/index.js'))) throw new Error(`${t.root}: packages/host/dist/index.js is missing (build it)`);
  const workerTmp = ensureDir(path.join(tmp, 'tmp'));
  const spec = (extra) => ({ warmup: 3, reps: opts.reps, gc: false, command: opts.command, resultFile: path.join(tmp, 'result.json'), ...extra });
  const run = (s, root) => {
    const out = runWorker(WORKER, s, { cwd: root, env: { TMPDIR: workerTmp, PI_OFFLINE: '1' } });
    for (const f of fs.readdirSync(workerTmp)) fs.rmSync(path.join(workerTmp, f), { recursive: true, force: true });
    if (out.failed) throw new Error(`worker failed (${s.side} ${s.subject ?? ''}): ${out.stderr}`);
    return out;
  };

  // Breakdown: empty workspace, every subject each round, then Pi and the bare floors.
  log(`breakdown of bash ${JSON.stringify(opts.command)}: ${opts.rounds} rounds × ${opts.reps} calls; load ${machine.loadAvgAtStart.join(' ')}`);
  const empty = path.join(tmp, 'ws-empty');
  makeWorkspace(empty, 'empty');
  const home = ensureDir(path.join(tmp, 'home'));
  const homeOff = ensureDir(path.join(tmp, 'home-off'));
  fs.writeFileSync(path.join(ensureDir(path.join(homeOff, '.config', 'airlock')), 'settings.json'), `${JSON.stringify({ sandbox: { mode: 'off' } })}\n`);
  const calls = new Map();
  const add = (key, list) => calls.set(key, [...(calls.get(key) ?? []), ...list]);
  for (let r = 0; r < opts.rounds; r++) {
    const order = r % 2 === 0 ? trees : [...trees].reverse();
    for (const t of order) {
      const out = run(spec({ side: 'airlock', subject: t.subject, root: t.root, workspace: empty, home }), t.root);
      add(t.subject, out.calls);
      add(`${t.subject}: its command line, bare`, out.raw);
      add(`${t.subject}.nosandbox`, run(spec({ side: 'airlock', subject: t.subject, root: t.root, workspace: empty, home: homeOff }), t.root).calls);
    }
    add('pi', run(spec({ side: 'pi', workspace: empty }), ROOT).calls);
    add('raw bash', run(spec({ side: 'raw', workspace: empty }), ROOT).calls);
    log(`round ${r + 1}: ${[...calls].map(([k, v]) => `${k} ${round(median(v.map((c) => c.total)))}`).join(', ')}`);
  }
  const breakdown = {};
  for (const [key, list] of calls) {
    breakdown[key] = {};
    for (const [step] of STEPS) {
      const values = list.map((c) => c[step]).filter((v) => v !== undefined);
      if (values.length > 0) breakdown[key][step] = round(median(values), 2);
    }
    breakdown[key].calls = list.length;
  }

  // Workspace curve: a fresh host per size, first call and later calls.
  const curve = [];
  for (const size of opts.sizes) {
    const ws = path.join(tmp, `ws-${size}`);
    const t0 = performance.now();
    makeWorkspace(ws, size);
    log(`workspace ${size} made in ${round((performance.now() - t0) / 1000, 1)} s`);
    for (let r = 0; r < Math.min(2, opts.rounds); r++) {
      for (const t of r % 2 === 0 ? trees : [...trees].reverse()) {
        const out = run(spec({ side: 'airlock', subject: t.subject, root: t.root, workspace: ws, home, reps: Math.min(opts.reps, 10) }), t.root);
        curve.push({ size, subject: t.subject, first: out.first, later: out.calls });
      }
    }
    fs.rmSync(ws, { recursive: true, force: true });
  }
  const curveRows = [];
  for (const size of opts.sizes) {
    for (const t of trees) {
      const runs = curve.filter((c) => c.size === size && c.subject === t.subject);
      if (runs.length === 0) continue;
      const later = runs.flatMap((c) => c.later);
      const m = (list, k) => round(median(list.map((c) => c[k]).filter((v) => v !== undefined)), 2);
      curveRows.push({ size, subject: t.subject, firstTotal: m(runs.map((c) => c.first), 'total'), firstWrap: m(runs.map((c) => c.first), 'wrap'), firstRelease: m(runs.map((c) => c.first), 'release'), laterTotal: m(later, 'total'), laterWrap: m(later, 'wrap'), laterRelease: m(later, 'release') });
    }
  }

  const report = { bench: 'sandbox', date: new Date().toISOString(), machine, command: opts.command, rounds: opts.rounds, reps: opts.reps, base: opts.base ?? null, breakdown, curve: curveRows };
  const markdown = render(report, trees);
  process.stdout.write(`\n${markdown}\n`);
  if (opts.write) {
    ensureDir(RESULTS_DIR);
    fs.writeFileSync(path.join(RESULTS_DIR, 'sandbox.json'), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(RESULTS_DIR, 'sandbox.md'), markdown);
    log(`wrote ${relativeToCwd(path.join(RESULTS_DIR, 'sandbox.md'))} and sandbox.json`);
  }
}

function render(report, trees) {
  const L = [];
  const fmt = (v) => (v === undefined || Number.isNaN(v) ? '' : v >= 100 ? String(Math.round(v)) : v.toFixed(2));
  L.push(`### Sandboxed \`bash ${report.command}\`, step by step`, '');
  L.push(`${report.date.slice(0, 16).replace('T', ' ')} UTC, ${report.machine.cpus} CPUs, load at start ${report.machine.loadAvgAtStart.join(' ')}; ${report.rounds} rounds × ${report.reps} calls per subject, medians in ms, subjects interleaved.${report.base ? ` "before" is the tree at \`${report.base}\`.` : ''}`, '');
  const cols = Object.keys(report.breakdown);
  L.push(`| step | ${cols.join(' | ')} |`, `|---|${cols.map(() => '---:').join('|')}|`);
  for (const [step, label] of STEPS) {
    if (!cols.some((c) => report.breakdown[c][step] !== undefined)) continue;
    L.push(`| ${label} | ${cols.map((c) => fmt(report.breakdown[c][step])).join(' | ')} |`);
  }
  const pi = report.breakdown.pi?.total;
  if (pi !== undefined) L.push(`| ÷ Pi (whole call) | ${cols.map((c) => fmt(report.breakdown[c].total / pi)).join(' | ')} |`);
  L.push('', "Steps are timed from outside the product (the bash tool's execute wrapped, the sandbox's wrap and release timed through its ToolContext, child_process.spawn wrapped). `raw bash` is `bash -c <command>` spawned from Node; `<subject>: its command line, bare` is the exact command line that subject's tool last ran (launcher, bubblewrap, limits prelude, shell), spawned from the same process without the tool: the floor under the tool. `*.nosandbox` is sandbox.mode off.", '');
  if (report.curve.length > 0) {
    L.push('### Workspace size', '', 'A fresh host per size; the first call, then later calls (median). wrap = profile and mount walk before the command, release = the walk after it.', '');
    L.push('| workspace | subject | first call (with lazy loading) | first wrap | first release | later call | later wrap | later release |', '|---|---|---:|---:|---:|---:|---:|---:|');
    for (const r of report.curve) L.push(`| ${r.size} | ${r.subject} | ${fmt(r.firstTotal)} | ${fmt(r.firstWrap)} | ${fmt(r.firstRelease)} | ${fmt(r.laterTotal)} | ${fmt(r.laterWrap)} | ${fmt(r.laterRelease)} |`);
    L.push('', `Sizes: Nk = N thousand files, 100 to a folder; deep30 = a chain of 30 folders. Subjects: ${trees.map((t) => t.subject).join(', ')}.`, '');
  }
  return L.join('\n');
}

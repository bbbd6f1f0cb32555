// The tools bench: Airlock's built-in tools (the extension packages, loaded by the host) next to
// Pi's, on identically generated inputs. Run through `pnpm bench tools`.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureDir, machineInfo, median, relativeToCwd, round, runWorker } from '../lib/harness.mjs';
import { prng } from '../lib/prng.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BENCH_DIR = path.resolve(HERE, '..');
const ROOT = path.resolve(BENCH_DIR, '..');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const WORKER = path.join(HERE, 'worker.mjs');
const README = path.join(BENCH_DIR, 'README.md');

export const description = "Airlock's built-in tools (read, write, edit, bash, grep, find, ls via the host) vs Pi's, same generated inputs";

export const usage = `pnpm bench tools [options]
  --quick            ~40 s smoke run: smaller inputs (5 MB read, 1 MB edit/write, seq 200k), 1 round, fewer reps
  --rounds N         run every worker N times round-robin (default 2; quick: 1)
  --only a,b         only these workloads
  --no-direct        skip the airlock.direct subject (tool.execute without the kernel pipeline; skipped in --quick)
  --no-node-engine   skip the airlock.node subject (grep/find forced onto the pure-Node engines; only run when rg/fd are on PATH)
  --direct           include it in --quick too
  --no-gc            skip the forced full GC before each timed run
  --no-write         do not write bench/results/tools.{json,md} nor the README table
  --keep             keep the generated inputs (printed path)
  --base DIR         also run the 'airlock' (and for bash 'airlock.nosandbox') subject from the built tree at DIR, as '*.before' rows: before and after in one run`;

function parseArgs(argv) {
  const opts = { quick: false, rounds: undefined, only: undefined, direct: undefined, nodeEngine: true, gc: true, write: true, keep: false };
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
    else if (a === '--no-direct') opts.direct = false;
    else if (a === '--direct') opts.direct = true;
    else if (a === '--no-node-engine') opts.nodeEngine = false;
    else if (a === '--no-gc') opts.gc = false;
    else if (a === '--no-write') opts.write = false;
    else if (a === '--keep') opts.keep = true;
    else if (a === '--base') opts.base = path.resolve(value());
    else throw new Error(`unknown option for the tools bench: ${a}\n${usage}`);
  }
  if (opts.rounds !== undefined && !(Number.isInteger(opts.rounds) && opts.rounds > 0)) throw new Error('--rounds needs a positive integer');
  opts.direct ??= !opts.quick; // quick runs skip airlock.direct to stay near 40 s
  return opts;
}

// ---------------------------------------------------------------------------------------------
// input generation (deterministic: a seeded PRNG, so both sides and every run see the same bytes)

const ALPHA = Buffer.from('abcdefghijklmnopqrstuvwxyz0123456789 ');

/** `lines` lines of exactly `width` bytes each (newline included), "L0000001 <random>\n". */
function linesBuffer(lines, width, seed) {
  const rnd = prng(seed);
  const buf = Buffer.allocUnsafe(lines * width);
  for (let i = 0; i < lines; i++) {
    const off = i * width;
    const head = `L${String(i + 1).padStart(7, '0')} `;
    buf.write(head, off, 'latin1');
    for (let j = head.length; j < width - 1; j++) buf[off + j] = ALPHA[(rnd() * ALPHA.length) | 0];
    buf[off + width - 1] = 0x0a;
  }
  return buf;
}

/** A text of ~`bytes` bytes of 50-byte lines with `marker` once in the middle. */
function editFile(bytes, marker, seed) {
  const lines = Math.floor(bytes / 50);
  const buf = linesBuffer(lines, 50, seed);
  const mid = Math.floor(lines / 2) * 50 + 9;
  buf.write(marker, mid, 'latin1');
  return buf;
}

function generate(ws, sizes) {
  const t0 = performance.now();
  const w = (rel, data) => {
    const file = path.join(ws, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data);
  };
  w('big.txt', linesBuffer(sizes.bigLines, 50, 1));
  w('small-2000.txt', linesBuffer(2000, 21, 2)); // 2,000 lines, 42,000 bytes, trailing newline
  w('edit-big.txt', editFile(sizes.editBytes, 'MARKER_A_0001', 3));
  w('edit-small.txt', editFile(10_000, 'MARKER_A_0001', 4));
  // write content: 10,000,000 (quick: 1,000,000) ASCII chars
  w('write-content.txt', linesBuffer(sizes.writeChars / 50, 50, 5));
  // a small file for single-file grep, with one UNIQUE_NEEDLE line
  const g = editFile(10_000, 'UNIQUE_NEEDLE', 6);
  w('grep-small.txt', g);
  // ls: a folder of 10,000 empty files
  const many = ensureDir(path.join(ws, 'many'));
  for (let i = 0; i < 10_000; i++) fs.writeFileSync(path.join(many, `entry-${String(i).padStart(5, '0')}.txt`), '');
  // tree: ~2,000 source-like files in 20 x 10 folders, ~3 KB each; a rare needle in 7 of them
  const rnd = prng(7);
  let n = 0;
  for (let a = 0; a < 20; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = ensureDir(path.join(ws, 'tree', 'src', `m${String(a).padStart(2, '0')}`, `p${b}`));
      for (let c = 0; c < 10; c++) {
        n++;
        const ext = ['ts', 'js', 'md', 'json', 'txt'][c % 5];
        const lines = [];
        for (let l = 0; l < 60; l++) lines.push(`const value_${(rnd() * 1e6) | 0} = ${(rnd() * 1e9) | 0}; // ${l}`);
        if (n % 290 === 0) lines[30] = `export const needle_rare_${n} = true;`;
        fs.writeFileSync(path.join(dir, `file${n}.${ext}`), `${lines.join('\n')}\n`);
      }
    }
  }
  return { ms: performance.now() - t0, treeFiles: n };
}

// ---------------------------------------------------------------------------------------------
// workloads

function sizesFor(quick) {
  return quick
    ? { bigLines: 100_000, editBytes: 1_000_000, writeChars: 1_000_000, seqN: 200_000 }
    : { bigLines: 1_000_000, editBytes: 10_000_000, writeChars: 10_000_000, seqN: 2_000_000 };
}

function plans(quick) {
  return quick
    ? { rounds: 1, big: { warmup: 0, minReps: 3, maxReps: 3, budgetMs: 0 }, small: { warmup: 2, minReps: 5, maxReps: 5, budgetMs: 0 } }
    : { rounds: 2, big: { warmup: 1, minReps: 5, maxReps: 8, budgetMs: 1_000 }, small: { warmup: 5, minReps: 12, maxReps: 200, budgetMs: 500 } };
}

const mbLabel = (bytes) => (bytes >= 1e6 ? `${bytes / 1e6}mb` : `${bytes / 1e3}kb`);
const countLabel = (n) => (n >= 1e6 ? `${n / 1e6}m` : `${n / 1e3}k`);

function defineWorkloads(s, p) {
  const big = mbLabel(s.bigLines * 50);
  const seq = countLabel(s.seqN);
  const totalLines = s.bigLines + 1; // the trailing newline counts as a line in Pi's read
  const list = [
    { id: `read_${big}_default`, title: `read of a ${(s.bigLines * 50).toLocaleString('en-US')}-byte file (${s.bigLines.toLocaleString('en-US')} lines of 50 bytes), no offset/limit`, tool: 'read', args: { path: 'big.txt' }, plan: p.big, target: { kind: 'ms', ms: 5, label: '≤ 5 ms, flat memory' } },
    { id: `read_${big}_offset_end`, title: `read of the same file, offset ${totalLines - 1000} (the last 1,000 lines)`, tool: 'read', args: { path: 'big.txt', offset: totalLines - 1000 }, plan: p.big, target: { kind: 'pi' } },
    { id: 'read_small_2000', title: 'read of 2,000 lines, 42 KB, trailing newline', tool: 'read', args: { path: 'small-2000.txt' }, plan: p.small, target: { kind: 'pi' } },
    { id: `edit_${mbLabel(s.editBytes)}`, title: `edit of a ${s.editBytes.toLocaleString('en-US')}-byte file: one unique marker replaced, toggled each run between two markers`, tool: 'edit', file: 'edit-big.txt', markers: ['MARKER_A_0001', 'MARKER_B_0002'], plan: p.big, target: s.editBytes === 10_000_000 ? { kind: 'ms', ms: 40, label: '≤ 40 ms' } : { kind: 'pi' } },
    { id: 'edit_small', title: 'edit of a 10 KB file, same toggle', tool: 'edit', file: 'edit-small.txt', markers: ['MARKER_A_0001', 'MARKER_B_0002'], plan: p.small, target: { kind: 'pi' } },
    { id: `write_${mbLabel(s.writeChars)}`, title: `write of ${s.writeChars.toLocaleString('en-US')} ASCII chars into a new subfolder (the folder is removed before each run, untimed)`, tool: 'write', contentFile: 'write-content.txt', plan: p.big, target: { kind: 'pi' } },
    { id: `bash_seq_${seq}`, title: `bash \`seq 1 ${s.seqN}\` (output tail-truncated by the tool)`, tool: 'bash', args: { command: `seq 1 ${s.seqN}` }, expect: String(s.seqN), plan: p.big, shell: `seq 1 ${s.seqN} > /dev/null`, target: { kind: 'shell', factor: 1.3, label: '≤ 1.3× raw shell' } },
    { id: 'bash_true', title: 'bash `true`', tool: 'bash', args: { command: 'true' }, plan: p.small, target: { kind: 'pi' } },
    { id: 'grep_single_small_file', title: 'grep of one 10 KB file, one match', tool: 'grep', args: { pattern: 'UNIQUE_NEEDLE', path: 'grep-small.txt' }, expect: 'UNIQUE_NEEDLE', plan: p.small, needs: 'rg', target: { kind: 'pi' } },
    { id: 'grep_tree_rare', title: 'grep over the ~2,000-file tree, 6 matches', tool: 'grep', args: { pattern: 'needle_rare_[0-9]+', path: 'tree' }, expect: 'needle_rare_', plan: p.small, needs: 'rg', target: { kind: 'pi' } },
    { id: 'grep_tree_common', title: 'grep over the tree, every line matches (default limit 100)', tool: 'grep', args: { pattern: 'value_[0-9]+ =', path: 'tree' }, plan: p.small, needs: 'rg', target: { kind: 'pi' } },
    { id: 'find_tree_glob', title: 'find `*.ts` in the tree (400 results)', tool: 'find', args: { pattern: '*.ts', path: 'tree' }, expect: '.ts', plan: p.small, needs: 'fd', target: { kind: 'pi' } },
    { id: 'find_tree_path_glob', title: 'find `src/m01*/**/*5.js` in the tree', tool: 'find', args: { pattern: 'src/m01*/**/*5.js', path: 'tree' }, plan: p.small, needs: 'fd', target: { kind: 'pi' } },
    { id: 'ls_10k_default', title: 'ls of a folder of 10,000 entries (default limit 500)', tool: 'ls', args: { path: 'many' }, expect: 'entry-00000', plan: p.small, target: { kind: 'pi' } },
  ];
  return list;
}

function which(cmd) {
  try {
    return execFileSync('bash', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** "major.minor" of `fd --version` / `fdfind --version`, or null. */
function fdVersion(bin) {
  try {
    const m = /(\d+)\.(\d+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }));
    return m ? { major: Number(m[1]), minor: Number(m[2]), text: `${m[1]}.${m[2]}` } : null;
  } catch {
    return null;
  }
}

/**
 * Pi always passes --no-require-git to fd, which fd < 8.7 (Debian bookworm's fdfind 8.6) rejects,
 * so its find would only time an error. Pi looks in $PI_CODING_AGENT_DIR/bin/fd before PATH: put a
 * shim there that drops that flag. Outside git repos that keeps .gitignore files unread; the
 * generated tree has none, so the results are the same. Returns the shim's path, or null.
 */
function piFdShim(piAgentDir, fd) {
  const v = fdVersion(fd);
  if (v && (v.major > 8 || (v.major === 8 && v.minor >= 7))) return null;
  const shim = path.join(ensureDir(path.join(piAgentDir, 'bin')), 'fd');
  const body = [
    '#!/bin/sh',
    '# bench shim: fd < 8.7 has no --no-require-git; drop it, keep every other argument in order',
    'for a; do shift; [ "$a" = --no-require-git ] || set -- "$@" "$a"; done',
    `exec '${fd}' "$@"`,
    '',
  ].join('\n');
  fs.writeFileSync(shim, body, { mode: 0o755 });
  return shim;
}

/**
 * A HOME whose user settings change the default extension set: an entry naming a default package
 * takes its place (settings add to the default set, they do not replace it). The engine home
 * gives grep and find their Node engines, so the pipeline (policy, audit, redaction hooks) stays
 * the 'airlock' row's and only the engines differ; the tools-only home leaves out every default
 * extension that is not a tool ("-name").
 */
function nodeEngineHome(dir, defaultExtensions, { toolsOnly = false } = {}) {
  const extensions = toolsOnly
    ? defaultExtensions.filter((name) => !name.startsWith('@airlock/tool-')).map((name) => `-${name}`)
    : ['@airlock/tool-grep', '@airlock/tool-find'].filter((name) => defaultExtensions.includes(name)).map((name) => ({ name, options: { engine: 'node' } }));
  const config = ensureDir(path.join(dir, '.config', 'airlock'));
  fs.writeFileSync(path.join(config, 'settings.json'), `${JSON.stringify({ extensions }, null, 2)}\n`);
  return dir;
}

function peerVersions() {
  const v = (dir) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  return {
    '@mariozechner/pi-coding-agent': v(path.join(BENCH_DIR, 'peer/node_modules/@mariozechner/pi-coding-agent')),
    '@airlock/host': v(path.join(ROOT, 'packages/host')),
    '@airlock/kernel': v(path.join(ROOT, 'packages/kernel')),
  };
}

// ---------------------------------------------------------------------------------------------
// main

export async function main(argv) {
  const opts = parseArgs(argv);
  const sizes = sizesFor(opts.quick);
  const p = plans(opts.quick);
  const rounds = opts.rounds ?? p.rounds;
  let workloads = defineWorkloads(sizes, p);
  if (opts.only) {
    const unknown = opts.only.filter((id) => !workloads.some((w) => w.id === id));
    if (unknown.length) throw new Error(`unknown workload(s): ${unknown.join(', ')}; available: ${workloads.map((w) => w.id).join(', ')}`);
    workloads = workloads.filter((w) => opts.only.includes(w.id));
  }
  const log = (...a) => console.error('[bench:tools]', ...a);
  if (!fs.existsSync(path.join(ROOT, 'packages/host/dist/index.js'))) throw new Error('packages/host/dist/index.js is missing: run pnpm -s build');

  const binaries = { rg: which('rg'), fd: which('fd') ?? which('fdfind') };
  if (binaries.fd) binaries.fdVersion = fdVersion(binaries.fd)?.text ?? null;
  const piUnavailable = (w) => (w.needs && !binaries[w.needs] ? `Pi: unavailable without ${w.needs} (not on PATH; PI_OFFLINE=1 forbids Pi's download)` : null);

  const started = performance.now();
  const startedAt = new Date();
  const machine = machineInfo();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-tools-'));
  const ws = ensureDir(path.join(tmp, 'ws'));
  const home = ensureDir(path.join(tmp, 'home'));
  const { DEFAULT_EXTENSIONS } = await import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href);
  const homeNode = nodeEngineHome(ensureDir(path.join(tmp, 'home-node')), DEFAULT_EXTENSIONS);
  // The seven tools without the policy extensions: the 'airlock' row minus policy, audit and redaction.
  const homeTools = nodeEngineHome(ensureDir(path.join(tmp, 'home-tools')), DEFAULT_EXTENSIONS, { toolsOnly: true });
  // bash without the OS sandbox (user settings sandbox.mode "off"), next to the sandboxed 'airlock' row.
  const homeNoSandbox = ensureDir(path.join(tmp, 'home-nosandbox'));
  fs.writeFileSync(path.join(ensureDir(path.join(homeNoSandbox, '.config', 'airlock')), 'settings.json'), `${JSON.stringify({ sandbox: { mode: 'off' } })}\n`);
  const piAgentDir = ensureDir(path.join(tmp, 'pi-agent-dir'));
  binaries.piFdShim = binaries.fd ? piFdShim(piAgentDir, binaries.fd) : null;
  const workerTmp = ensureDir(path.join(tmp, 'tmp')); // TMPDIR of the workers: bash spill files land here
  const cleanup = () => (opts.keep ? null : fs.rmSync(tmp, { recursive: true, force: true }));
  process.once('exit', cleanup);
  process.once('SIGINT', () => process.exit(130));
  log(`generating inputs in ${tmp} (${opts.quick ? 'quick' : 'full'} sizes)`);
  const gen = generate(ws, sizes);
  log(`inputs ready in ${(gen.ms / 1000).toFixed(1)} s; rg ${binaries.rg ?? 'missing'}, fd ${binaries.fd ? `${binaries.fd} ${binaries.fdVersion ?? ''}` : 'missing'}${binaries.piFdShim ? ` (Pi gets the shim ${binaries.piFdShim})` : ''}`);

  const jobs = [];
  for (const w of workloads) {
    jobs.push({ w, subject: 'airlock', side: 'airlock' });
    jobs.push({ w, subject: 'airlock.tools', side: 'airlock', home: homeTools });
    if (opts.direct) jobs.push({ w, subject: 'airlock.direct', side: 'airlock' });
    // With rg/fd present the 'airlock' row may time them; this row times the Node engines next to it.
    if (opts.nodeEngine && w.needs && binaries[w.needs]) jobs.push({ w, subject: 'airlock.node', side: 'airlock', home: homeNode });
    if (w.tool === 'bash') jobs.push({ w, subject: 'airlock.nosandbox', side: 'airlock', home: homeNoSandbox });
    if (w.tool === 'bash') jobs.push({ w, subject: 'airlock.noseccomp', side: 'airlock' });
    if (opts.base) {
      jobs.push({ w, subject: 'airlock.before', side: 'airlock', root: opts.base });
      if (w.tool === 'bash') jobs.push({ w, subject: 'airlock.nosandbox.before', side: 'airlock', home: homeNoSandbox, root: opts.base });
    }
    if (!piUnavailable(w)) jobs.push({ w, subject: 'pi', side: 'pi' });
    if (w.shell) jobs.push({ w, subject: 'shell', side: 'shell', argsOverride: { command: w.shell } });
  }
  log(`${jobs.length} workers x ${rounds} round(s), Node ${process.version}, ${machine.cpus} CPUs, load ${machine.loadAvgAtStart.join(' ')}`);

  const runs = new Map(jobs.map((j) => [`${j.w.id}:${j.subject}`, []]));
  const failures = [];
  for (let r = 1; r <= rounds; r++) {
    // Alternate which side goes first within each workload.
    const ordered = r % 2 === 1 ? jobs : [...jobs].reverse();
    for (const job of ordered) {
      const key = `${job.w.id}:${job.subject}`;
      const t0 = performance.now();
      const { plan, target, shell, needs, title, argsOverride, ...workload } = { ...job.w, argsOverride: job.argsOverride };
      if (job.argsOverride) workload.args = job.argsOverride;
      if (job.side === 'shell') workload.expect = undefined;
      const spec = { side: job.side, subject: job.subject, ...(job.root ? { root: job.root } : {}), workspace: ws, home: job.home ?? home, workload, ...job.w.plan, gcBetweenReps: opts.gc, resultFile: path.join(tmp, `${key.replace(/[^a-z0-9_]+/gi, '-')}-${r}.json`) };
      const env = { TMPDIR: workerTmp, PI_OFFLINE: '1', PI_CODING_AGENT_DIR: piAgentDir };
      const res = runWorker(WORKER, spec, { cwd: ROOT, env });
      const wall = Math.round(performance.now() - t0);
      // bash spill files of this worker: not needed
      for (const f of fs.readdirSync(workerTmp)) fs.rmSync(path.join(workerTmp, f), { recursive: true, force: true });
      if (res.failed) {
        failures.push({ job: key, round: r, status: res.status, signal: res.signal, stderr: res.stderr });
        log(`[${r}/${rounds}] ${key}: FAILED (exit ${res.status}${res.signal ? `, ${res.signal}` : ''})\n${res.stderr}`);
        continue;
      }
      runs.get(key).push(res);
      log(`[${r}/${rounds}] ${key}${res.engine ? ` [${res.engine}]` : ''}: ${fmtMs(median(res.runUs) / 1000)} ms (${res.runUs.length} reps, peak RSS ${res.peakRssMB} MB, ${wall} ms wall)${res.problems.length ? `  PROBLEMS: ${res.problems.join('; ')}` : ''}`);
    }
  }

  const report = buildReport({ opts, sizes, rounds, workloads, jobs, runs, failures, machine, startedAt, binaries, piUnavailable, gen, totalMs: performance.now() - started });
  const markdown = renderMarkdown(report);
  process.stdout.write(`\n${markdown}\n`);
  if (opts.write) {
    ensureDir(RESULTS_DIR);
    const base = opts.quick ? 'tools-quick' : opts.gc ? 'tools' : 'tools-nogc';
    fs.writeFileSync(path.join(RESULTS_DIR, `${base}.json`), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(RESULTS_DIR, `${base}.md`), markdown);
    log(`wrote ${relativeToCwd(path.join(RESULTS_DIR, `${base}.json`))} and ${base}.md`);
    if (!opts.quick && opts.gc && !opts.only) {
      updateReadme(markdown);
      log(`updated the "Tools bench" section of ${relativeToCwd(README)}`);
    }
  }
  if (opts.keep) log(`inputs kept in ${tmp}`);
  log(`done in ${(report.totalMs / 1000).toFixed(1)} s`);
  if (failures.length) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// aggregation

function stats(us) {
  if (!us.length) return null;
  return { medianMs: round(median(us) / 1000, 3), minMs: round(Math.min(...us) / 1000, 3), maxMs: round(Math.max(...us) / 1000, 3), samples: us.length };
}

function buildReport({ opts, sizes, rounds, workloads, jobs, runs, failures, machine, startedAt, binaries, piUnavailable, gen, totalMs }) {
  const out = {};
  for (const w of workloads) {
    const subjects = {};
    for (const job of jobs.filter((j) => j.w.id === w.id)) {
      const results = runs.get(`${w.id}:${job.subject}`) ?? [];
      if (!results.length) {
        subjects[job.subject] = { failed: true };
        continue;
      }
      const last = results.at(-1);
      subjects[job.subject] = {
        ...stats(results.flatMap((r) => r.runUs)),
        roundMediansMs: results.map((r) => round(median(r.runUs) / 1000, 2)),
        firstCallMs: round(median(results.map((r) => r.firstCallMs)), 2),
        peakRssMB: round(median(results.map((r) => r.peakRssMB)), 1),
        rssAfterImportMB: round(median(results.map((r) => r.rssAfterImportMB)), 1),
        peakAboveImportMB: round(median(results.map((r) => r.peakRssMB - r.rssAfterImportMB)), 1),
        lastResult: last.lastText,
        lastIsError: last.lastIsError,
        engines: [...new Set(results.map((r) => r.engine).filter(Boolean))],
        problems: [...new Set(results.flatMap((r) => r.problems))],
        processWarnings: [...new Set(results.flatMap((r) => r.warnings.map((x) => `${x.name}: ${x.message}`)))],
      };
    }
    const a = subjects.airlock;
    const pi = subjects.pi;
    const ratio = (s) => (s && !s.failed && pi && !pi.failed ? round(s.medianMs / pi.medianMs, 3) : null);
    const ratios = { airlock: ratio(a), 'airlock.tools': ratio(subjects['airlock.tools']), 'airlock.direct': ratio(subjects['airlock.direct']), 'airlock.node': ratio(subjects['airlock.node']), 'airlock.nosandbox': ratio(subjects['airlock.nosandbox']), 'airlock.noseccomp': ratio(subjects['airlock.noseccomp']), 'airlock.before': ratio(subjects['airlock.before']), 'airlock.nosandbox.before': ratio(subjects['airlock.nosandbox.before']) };
    const bare = subjects['airlock.nosandbox'];
    // What the sandbox costs: the sandboxed row over the same pipeline with sandbox.mode "off".
    const sandbox = a && !a.failed && bare && !bare.failed ? { overMs: round(a.medianMs - bare.medianMs, 3), ratio: round(a.medianMs / bare.medianMs, 3) } : null;
    // What the seccomp layer costs: the sandboxed row over the same sandbox without the filter.
    const unfiltered = subjects['airlock.noseccomp'];
    const seccomp = a && !a.failed && unfiltered && !unfiltered.failed ? { overMs: round(a.medianMs - unfiltered.medianMs, 3), ratio: round(a.medianMs / unfiltered.medianMs, 3) } : null;
    let target = null;
    if (a && !a.failed) {
      if (w.target.kind === 'ms') target = { label: w.target.label, value: `${fmtMs(a.medianMs)} ms, +${fmt(a.peakAboveImportMB, 0)} MB above import`, pass: a.medianMs <= w.target.ms };
      else if (w.target.kind === 'shell' && subjects.shell && !subjects.shell.failed) {
        const f = a.medianMs / subjects.shell.medianMs;
        target = { label: w.target.label, value: `${fmt(f)}× raw shell`, pass: f <= w.target.factor };
      } else if (w.target.kind === 'pi') target = ratios.airlock === null ? { label: '≤ Pi', value: 'no Pi figure', pass: null } : { label: '≤ Pi', value: `${fmt(ratios.airlock)}× Pi`, pass: ratios.airlock <= 1 };
    }
    out[w.id] = { title: w.title, tool: w.tool, args: w.args ?? null, subjects, ratiosAirlockOverPi: ratios, ...(sandbox === null ? {} : { sandboxOverUnsandboxed: sandbox }), ...(seccomp === null ? {} : { seccompOverUnfiltered: seccomp }), piUnavailable: piUnavailable(w), target };
  }
  return {
    bench: 'tools',
    mode: opts.quick ? 'quick' : 'full',
    rounds,
    gcBetweenReps: opts.gc,
    date: startedAt.toISOString(),
    totalMs: round(totalMs, 0),
    machine,
    versions: peerVersions(),
    binaries,
    inputs: { ...sizes, generationMs: round(gen.ms, 0), treeFiles: gen.treeFiles, generator: 'mulberry32-seeded, fixed seeds per file' },
    workloads: out,
    failures,
    method: {
      airlock:
        "'airlock.nosandbox' (bash rows only): the 'airlock' row with sandbox.mode \"off\" in user settings; 'airlock' runs bash inside the OS sandbox (bubblewrap) when it is installed. " +
        "'airlock.noseccomp' (bash rows only): the 'airlock' row with the same sandbox minus its seccomp filter (openHost's sandboxArch set to an architecture without a filter program), so the difference is the filter's own cost (a shell opening the program for bubblewrap, the kernel loading it, and the filter on every system call). " +
        "Airlock: a host opened like the product does (openHost from packages/host/dist, interactive false, an empty temporary HOME, so the whole default set loads: the seven tools and the policy extensions path-policy, approval, redact-secrets and audit-log); timed: host.execute({ id, name, arguments }), i.e. the whole kernel pipeline (argument preparation and validation, policy, redaction, the audit record, result normalization and truncation) plus the tool. 'airlock.tools': the same with only the seven tool extensions (no policy, redaction or audit), so the difference to 'airlock' is what policy costs. 'airlock.direct': the registered tool's own execute(id, args, undefined, undefined, ctx) with a ToolContext captured from the kernel (no validation, no hooks, no normalization), the counterpart of Pi's figure.",
      pi: "Pi: createXTool(workspace) from @mariozechner/pi-coding-agent, timed: tool.execute(id, args) directly, with no agent loop, no validation, no hooks and no AbortSignal (as in shared/research/pi-bench.md). Asymmetry: the 'airlock' row includes Airlock's pipeline, Pi's rows do not; compare 'airlock.direct' to Pi for the tools alone.",
      shell: "shell: bash -c '<command> > /dev/null' spawned from Node (stdio ignored), awaited until exit; the floor for bash_seq.",
      engines: "grep/find rows name the engine the tool reported (rg, fd or node). 'airlock.node' is 'airlock' (the whole pipeline, the same default extensions loaded by path from a user settings file) with grep and find forced onto their pure-Node engines; it runs only when rg/fd are on PATH. fd < 8.7 (no --no-require-git) is not used by Airlock; Pi gets a shim at $PI_CODING_AGENT_DIR/bin/fd that drops that flag and execs the system fd.",
      timing: 'One node --expose-gc child per (workload, subject) per round: open/import, one cold first call (reported separately), warm-ups, then timed runs each preceded by an untimed forced full GC until minReps and the time budget are met. Samples of all rounds are pooled. Edit toggles MARKER_A_0001 <-> MARKER_B_0002 in a per-worker copy of the generated file; write removes its target folder before each run (untimed).',
      rss: 'peak RSS = process.resourceUsage().maxRSS of the child; "above import" subtracts the RSS right after opening the host / importing Pi.',
    },
  };
}

// ---------------------------------------------------------------------------------------------
// rendering

const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
function fmtMs(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

export function renderMarkdown(r) {
  const L = [];
  L.push(`### Tools bench: Airlock vs Pi (${r.mode}, ${r.rounds} round${r.rounds > 1 ? 's' : ''}${r.gcBetweenReps ? '' : ', no forced GC'})`);
  L.push('');
  L.push(`${r.date} · Node ${r.machine.node} · ${r.machine.cpus} x ${r.machine.cpuModel} · load at start ${r.machine.loadAvgAtStart.join(' ')} · ${(r.totalMs / 1000).toFixed(0)} s · Pi coding-agent ${r.versions['@mariozechner/pi-coding-agent']} · @airlock/host ${r.versions['@airlock/host']} · rg ${r.binaries.rg ? 'on PATH' : 'missing'}, fd ${r.binaries.fd ? `on PATH${r.binaries.fdVersion ? ` (${r.binaries.fdVersion})` : ''}` : 'missing'}`);
  L.push('');
  L.push('ms per call: median [min–max] over all pooled runs; peak RSS MB of the child (in parentheses: above the RSS right after opening the host / importing Pi). Ratio = Airlock ÷ Pi (lower is better). **`airlock` includes the kernel pipeline** (validation, hooks, normalization); `airlock.direct` and `pi` are the tools\' execute alone.');
  L.push('');
  L.push('| workload | subject | median ms | min–max ms | runs | first call ms | peak RSS MB | ÷ Pi | target |');
  L.push('|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const [id, w] of Object.entries(r.workloads)) {
    const order = ['airlock', 'airlock.before', 'airlock.noseccomp', 'airlock.nosandbox', 'airlock.nosandbox.before', 'airlock.tools', 'airlock.direct', 'airlock.node', 'pi', 'shell'];
    for (const key of order) {
      const s = w.subjects[key];
      if (!s) {
        if (key === 'pi' && w.piUnavailable) L.push(`| ${id} | pi | unavailable without ${w.piUnavailable.includes('rg') ? 'rg' : 'fd'} | | | | | | |`);
        continue;
      }
      if (s.failed) {
        L.push(`| ${id} | ${key} | FAILED | | | | | | |`);
        continue;
      }
      const ratio = w.ratiosAirlockOverPi[key];
      const tgt = key === 'airlock' && w.target ? `${w.target.label}: ${w.target.value} → **${w.target.pass === null ? 'n/a' : w.target.pass ? 'PASS' : 'MISS'}**` : '';
      const engine = s.engines?.length ? ` (${s.engines.join(', ')})` : '';
      L.push(`| ${id} | ${key === 'shell' ? 'raw shell' : key}${engine} | ${fmtMs(s.medianMs)} | ${fmtMs(s.minMs)}–${fmtMs(s.maxMs)} | ${s.samples} | ${fmtMs(s.firstCallMs)} | ${fmt(s.peakRssMB, 0)} (+${fmt(s.peakAboveImportMB, 0)}) | ${ratio === null || ratio === undefined ? '' : fmt(ratio)} | ${tgt} |`);
    }
  }
  L.push('');
  const sandboxed = Object.entries(r.workloads).filter(([, w]) => w.sandboxOverUnsandboxed);
  if (sandboxed.length) {
    L.push(`OS sandbox (bubblewrap) cost per call, \`airlock\` (sandboxed, sandbox.mode auto) over \`airlock.nosandbox\` (sandbox.mode off): ${sandboxed.map(([id, w]) => `${id} +${fmtMs(w.sandboxOverUnsandboxed.overMs)} ms (${fmt(w.sandboxOverUnsandboxed.ratio)}×)`).join(', ')}.`, '');
  }
  const filtered = Object.entries(r.workloads).filter(([, w]) => w.seccompOverUnfiltered);
  if (filtered.length) {
    L.push(`Seccomp filter cost per call, \`airlock\` over \`airlock.noseccomp\` (the same sandbox without the filter): ${filtered.map(([id, w]) => `${id} ${w.seccompOverUnfiltered.overMs >= 0 ? '+' : ''}${fmtMs(w.seccompOverUnfiltered.overMs)} ms (${fmt(w.seccompOverUnfiltered.ratio)}×)`).join(', ')}.`, '');
  }
  const problems = [];
  for (const [id, w] of Object.entries(r.workloads)) for (const [key, s] of Object.entries(w.subjects)) for (const pr of s.problems ?? []) problems.push(`${id} ${key}: ${pr}`);
  if (problems.length) L.push(`**Problems:** ${problems.join(' · ')}`, '');
  if (r.failures.length) L.push(`**Failed workers:** ${r.failures.map((f) => `${f.job} (round ${f.round})`).join(', ')}`, '');
  const unavailable = Object.entries(r.workloads).filter(([, w]) => w.piUnavailable);
  if (unavailable.length) L.push(`Pi: unavailable without rg/fd for ${unavailable.map(([id]) => id).join(', ')} (Pi shells out to ripgrep/fd and would download them; the bench sets PI_OFFLINE=1). Airlock's grep/find run in-process ("engine": "node").`, '');
  L.push('Workloads:', '');
  for (const [id, w] of Object.entries(r.workloads)) L.push(`- \`${id}\`: ${w.title}`);
  L.push('');
  L.push(`- ${r.method.airlock}`);
  L.push(`- ${r.method.pi}`);
  L.push(`- ${r.method.shell}`);
  if (r.method.engines) L.push(`- ${r.method.engines}`);
  L.push(`- ${r.method.timing}`);
  L.push(`- ${r.method.rss}`);
  L.push('- Noisy shared machine: compare only numbers from the same run.');
  L.push('');
  return L.join('\n');
}

const README_START = '<!-- tools-bench:start -->';
const README_END = '<!-- tools-bench:end -->';

/** Replace (or append) the "Tools bench" section of bench/README.md; the rest is kept as is. */
function updateReadme(markdown) {
  const text = fs.readFileSync(README, 'utf8');
  const body = [
    README_START,
    '',
    '`pnpm bench tools` (about 4 min; `--quick` about 40 s with smaller inputs) runs the built-in tools side by side with',
    "Pi's on the same seeded, generated inputs. Code: `tools/main.mjs` (inputs, workloads, report) and `tools/worker.mjs`",
    '(one workload of one subject per child process, using `lib/harness.mjs`). Results: `results/tools.json`, `results/tools.md`.',
    'Targets: read 50 MB head ≤ 5 ms with flat memory; edit 10 MB ≤ 40 ms; bash seq 2M ≤ 1.3× raw shell; everything else ≤ Pi.',
    '',
    'Last full run:',
    '',
    markdown.replace(/^### .*\n/, '').trim(),
    '',
    README_END,
  ].join('\n');
  let next;
  const s = text.indexOf(README_START);
  const e = text.indexOf(README_END);
  if (s !== -1 && e !== -1) next = text.slice(0, s) + body + text.slice(e + README_END.length);
  else next = `${text.trimEnd()}\n\n## Tools bench\n\n${body}\n`;
  fs.writeFileSync(README, next);
}

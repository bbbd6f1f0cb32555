// The images bench: reading an image file that is over the model's limits, Airlock next to Pi,
// on the same generated files. Run through `pnpm bench images`.
//
// Airlock's read tool attaches the file whole and the kernel sends anything over 2000 px a side or
// 4.5 MiB of base64 to the host's resize step (sharp); Pi's read tool resizes itself (Photon WASM).
// Each side is timed as a whole read and as its resize function alone.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDir, machineInfo, median, relativeToCwd, round, runWorker } from '../lib/harness.mjs';
import { generateInputs, INPUTS } from './inputs.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BENCH_DIR = path.resolve(HERE, '..');
const ROOT = path.resolve(BENCH_DIR, '..');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const WORKER = path.join(HERE, 'worker.mjs');
const README = path.join(BENCH_DIR, 'README.md');

export const description = 'Reading over-limit images (4000x3000 screenshot PNG and photo JPEG, noise PNG, small PNG): Airlock (sharp) vs Pi (Photon WASM)';

export const usage = `pnpm bench images [options]
  --quick            ~1 min smoke run: one timed run per resize worker; prints the report, writes nothing
  --rounds N         run every worker N times, alternating the order (default 1)
  --only a,b         only these workloads (${INPUTS.map((i) => i.id).join(', ')}); writes nothing
  --no-gc            skip the forced full GC before each timed run
  --no-write         do not write bench/results/images.{json,md} nor the README section
  --keep             keep the generated images (the path is printed)`;

function parseArgs(argv) {
  const opts = { quick: false, rounds: 1, only: undefined, gc: true, write: true, keep: false };
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
    else if (a === '--no-gc') opts.gc = false;
    else if (a === '--no-write') opts.write = false;
    else if (a === '--keep') opts.keep = true;
    else throw new Error(`unknown option for the images bench: ${a}\n${usage}`);
  }
  if (!(Number.isInteger(opts.rounds) && opts.rounds > 0)) throw new Error('--rounds needs a positive integer');
  return opts;
}

/**
 * Repetition plans. Pi needs 1–4 s per large image on the reference machine, so its resize
 * workers stop at minReps; Airlock's fill the budget. The small image costs milliseconds on both
 * sides, so it gets warm-ups and many runs.
 */
function plans(quick) {
  return quick
    ? { resize: { warmup: 0, minReps: 1, maxReps: 1, budgetMs: 0 }, small: { warmup: 2, minReps: 5, maxReps: 5, budgetMs: 0 } }
    : { resize: { warmup: 0, minReps: 5, maxReps: 20, budgetMs: 3_000 }, small: { warmup: 3, minReps: 15, maxReps: 200, budgetMs: 1_000 } };
}

const MIME = { png: 'image/png', jpg: 'image/jpeg' };

function defineWorkloads(p) {
  return INPUTS.map((input) => {
    const small = input.id.startsWith('small');
    return {
      id: input.id,
      title: input.title,
      input: { file: input.file, width: input.width, height: input.height, mimeType: MIME[path.extname(input.file).slice(1)] },
      plan: small ? p.small : p.resize,
      // The kernel never calls the resize step for an image within the limits, so timing sharp on
      // it would measure work the product does not do. Pi's resizeImage checks the limits itself
      // (after decoding the image), so pi.resize stays: that is what every Pi read of an image pays.
      subjects: small ? ['airlock', 'pi', 'pi.resize'] : ['airlock', 'pi', 'airlock.resize', 'pi.resize'],
    };
  });
}

/** The Airlock subject a Pi subject is compared with, and the other way round. */
const COUNTERPART = { airlock: 'pi', 'airlock.resize': 'pi.resize' };

function versions() {
  const v = (dir) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  return {
    '@mariozechner/pi-coding-agent': v(path.join(BENCH_DIR, 'peer/node_modules/@mariozechner/pi-coding-agent')),
    '@silvia-odwyer/photon-node': v(path.join(BENCH_DIR, 'peer/node_modules/@silvia-odwyer/photon-node')),
    '@airlock/host': v(path.join(ROOT, 'packages/host')),
    sharp: v(path.join(ROOT, 'packages/host/node_modules/sharp')),
  };
}

// ---------------------------------------------------------------------------------------------
// main

export async function main(argv) {
  const opts = parseArgs(argv);
  const p = plans(opts.quick);
  let workloads = defineWorkloads(p);
  if (opts.only) {
    const unknown = opts.only.filter((id) => !workloads.some((w) => w.id === id));
    if (unknown.length) throw new Error(`unknown workload(s): ${unknown.join(', ')}; available: ${workloads.map((w) => w.id).join(', ')}`);
    workloads = workloads.filter((w) => opts.only.includes(w.id));
  }
  const log = (...a) => console.error('[bench:images]', ...a);
  for (const f of ['packages/host/dist/index.js', 'packages/kernel/dist/index.js']) if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run pnpm -s build`);

  const started = performance.now();
  const startedAt = new Date();
  const machine = machineInfo();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-images-'));
  const ws = ensureDir(path.join(tmp, 'ws'));
  const home = ensureDir(path.join(tmp, 'home'));
  const piAgentDir = ensureDir(path.join(tmp, 'pi-agent-dir'));
  const cleanup = () => (opts.keep ? null : fs.rmSync(tmp, { recursive: true, force: true }));
  process.once('exit', cleanup);
  process.once('SIGINT', () => process.exit(130));
  log(`generating the images in ${ws}`);
  const gen = await generateInputs(ws);
  log(`images ready in ${(gen.ms / 1000).toFixed(1)} s: ${Object.values(gen.files).map((f) => `${f.file} ${fmtMiB(f.bytes)} MiB`).join(', ')}`);

  const jobs = workloads.flatMap((w) => w.subjects.map((subject) => ({ w, subject })));
  log(`${opts.quick ? 'quick' : 'full'} run: ${jobs.length} workers x ${opts.rounds} round(s), Node ${process.version}, ${machine.cpus} CPUs, load ${machine.loadAvgAtStart.join(' ')}`);

  const runs = new Map(jobs.map((j) => [`${j.w.id}:${j.subject}`, []]));
  const failures = [];
  for (let r = 1; r <= opts.rounds; r++) {
    // Alternate the order between rounds, so neither side always runs right after the other's load.
    const ordered = r % 2 === 1 ? jobs : [...jobs].reverse();
    for (const { w, subject } of ordered) {
      const key = `${w.id}:${subject}`;
      const t0 = performance.now();
      const spec = { subject, workspace: ws, home, input: w.input, ...w.plan, gcBetweenReps: opts.gc, resultFile: path.join(tmp, `${key.replace(/[^a-z0-9_]+/gi, '-')}-${r}.json`) };
      const res = runWorker(WORKER, spec, { cwd: ROOT, env: { TMPDIR: tmp, PI_OFFLINE: '1', PI_CODING_AGENT_DIR: piAgentDir } });
      const wall = Math.round(performance.now() - t0);
      if (res.failed) {
        failures.push({ job: key, round: r, status: res.status, signal: res.signal, error: res.error, stderr: res.stderr });
        log(`[${r}/${opts.rounds}] ${key}: FAILED (exit ${res.status}${res.signal ? `, ${res.signal}` : ''})\n${res.stderr}`);
        continue;
      }
      runs.get(key).push(res);
      const o = res.output;
      log(`[${r}/${opts.rounds}] ${key}: ${fmtMs(median(res.runUs) / 1000)} ms, CPU ${fmtMs(median(res.cpuMs))} ms (${res.runUs.length} runs, first ${fmtMs(res.firstCallMs)} ms, peak RSS ${res.peakRssMB} MB, ${wall} ms wall) -> ${o.width}x${o.height} ${o.mimeType}, ${fmtMiB(o.base64Bytes)} MiB base64`);
    }
  }

  const report = buildReport({ opts, workloads, runs, failures, machine, startedAt, gen, totalMs: performance.now() - started });
  const markdown = renderMarkdown(report);
  process.stdout.write(`\n${markdown}\n`);
  // Smoke runs and partial runs never replace the committed full results.
  if (opts.write && !opts.quick && !opts.only) {
    ensureDir(RESULTS_DIR);
    const base = opts.gc ? 'images' : 'images-nogc';
    fs.writeFileSync(path.join(RESULTS_DIR, `${base}.json`), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(RESULTS_DIR, `${base}.md`), markdown);
    log(`wrote ${relativeToCwd(path.join(RESULTS_DIR, `${base}.json`))} and ${base}.md`);
    if (opts.gc) {
      updateReadme(markdown);
      log(`updated the "Images bench" section of ${relativeToCwd(README)}`);
    }
  }
  if (opts.keep) log(`images kept in ${ws}`);
  log(`done in ${(report.totalMs / 1000).toFixed(1)} s`);
  if (failures.length) process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// aggregation

function stats(us) {
  return { medianMs: round(median(us) / 1000, 3), minMs: round(Math.min(...us) / 1000, 3), maxMs: round(Math.max(...us) / 1000, 3), samples: us.length };
}

function buildReport({ opts, workloads, runs, failures, machine, startedAt, gen, totalMs }) {
  const out = {};
  let sharpInfo = null;
  for (const w of workloads) {
    const subjects = {};
    for (const subject of w.subjects) {
      const results = runs.get(`${w.id}:${subject}`) ?? [];
      if (!results.length) {
        subjects[subject] = { failed: true, error: failures.find((f) => f.job === `${w.id}:${subject}`)?.stderr?.trim().split('\n')[0] ?? null };
        continue;
      }
      sharpInfo ??= results.find((r) => r.sharpInfo)?.sharpInfo ?? null;
      subjects[subject] = {
        ...stats(results.flatMap((r) => r.runUs)),
        cpuMedianMs: round(median(results.flatMap((r) => r.cpuMs)), 2),
        roundMediansMs: results.map((r) => round(median(r.runUs) / 1000, 2)),
        firstCallMs: round(median(results.map((r) => r.firstCallMs)), 2),
        importMs: round(median(results.map((r) => r.importMs)), 1),
        peakRssMB: round(median(results.map((r) => r.peakRssMB)), 1),
        rssAfterImportMB: round(median(results.map((r) => r.rssAfterImportMB)), 1),
        peakAboveImportMB: round(median(results.map((r) => r.peakRssMB - r.rssAfterImportMB)), 1),
        output: results.at(-1).output,
        processWarnings: [...new Set(results.flatMap((r) => r.warnings.map((x) => `${x.name}: ${x.message}`)))],
      };
    }
    const ok = (s) => s && !s.failed;
    const ratios = {};
    const cpuRatios = {};
    for (const [a, b] of Object.entries(COUNTERPART)) {
      if (ok(subjects[a]) && ok(subjects[b])) {
        ratios[a] = round(subjects[a].medianMs / subjects[b].medianMs, 3);
        cpuRatios[a] = round(subjects[a].cpuMedianMs / subjects[b].cpuMedianMs, 3);
      }
    }
    const outA = subjects.airlock?.output;
    const outP = subjects.pi?.output;
    // The whole read and the resize step alone must hand over the same image; a difference would
    // mean the 'airlock' row does not time the path the '.resize' row describes (or vice versa).
    const mismatches = [];
    for (const [whole, part] of [['airlock', 'airlock.resize'], ['pi', 'pi.resize']]) {
      const x = subjects[whole]?.output;
      const y = subjects[part]?.output;
      if (x && y && (x.base64Bytes !== y.base64Bytes || x.width !== y.width || x.mimeType !== y.mimeType)) mismatches.push(`${whole} and ${part} produced different images`);
    }
    out[w.id] = {
      title: w.title,
      input: { ...w.input, bytes: gen.files[w.id].bytes, base64Bytes: gen.files[w.id].base64Bytes, sha1: gen.files[w.id].sha1 },
      subjects,
      ratiosAirlockOverPi: ratios,
      cpuRatiosAirlockOverPi: cpuRatios,
      outputBytesAirlockOverPi: outA && outP ? round(outA.base64Bytes / outP.base64Bytes, 3) : null,
      mismatches,
    };
  }
  return {
    bench: 'images',
    mode: opts.quick ? 'quick' : 'full',
    rounds: opts.rounds,
    gcBetweenReps: opts.gc,
    date: startedAt.toISOString(),
    totalMs: round(totalMs, 0),
    machine,
    versions: versions(),
    sharpInfo,
    limits: { maxDimension: 2000, maxBase64Bytes: 4.5 * 1024 * 1024 },
    inputs: { generationMs: round(gen.ms, 0), generator: 'bench/images/inputs.mjs: mulberry32-seeded pixels, encoded with sharp (PNG default settings; JPEG quality 90)' },
    workloads: out,
    failures,
    method: {
      airlock:
        "airlock: a host opened like the product does (openHost from packages/host/dist, interactive false, an empty temporary HOME, so the default tool set loads and images.autoResize is on); timed: host.execute({ id, name: 'read', arguments: { path } }) — the read tool attaches the file whole, the kernel checks the image and sends it over the limits to the host's resize step. airlock.resize: createImageResizer() from packages/host/dist alone, called like the kernel calls it, on the base64 image read beforehand (untimed).",
      pi: "pi: createReadTool(workspace, { autoResizeImages: true }) from @mariozechner/pi-coding-agent, timed: tool.execute(id, { path }) with no agent loop. pi.resize: resizeImage() from its dist/utils/image-resize.js alone, on the same base64 image.",
      checks:
        'Every call of every subject is checked in the worker: exactly one image, PNG or JPEG as declared, width and height read from its own header ≤ 2000 px, base64 ≤ 4.5 MiB, aspect ratio kept, and the size the side states (Airlock\'s note, Pi\'s "displayed at") equal to the header\'s. A violation fails the worker.',
      timing:
        'One node --expose-gc child per (workload, subject): import/open, one cold first call (reported separately: it loads sharp or Photon\'s WASM), warm-ups, then timed runs each preceded by an untimed forced full GC until minReps and the time budget are met. CPU ms = user + system time of the process during a run (libvips may use worker threads; Photon runs on the main thread).',
      rss: 'peak RSS = process.resourceUsage().maxRSS of the child; in parentheses, the part above the RSS right after import.',
    },
  };
}

// ---------------------------------------------------------------------------------------------
// rendering

const fmt = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
const fmtMiB = (bytes) => (bytes / 1048576).toFixed(2);
function fmtMs(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '–';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
const FORMAT = { 'image/png': 'PNG', 'image/jpeg': 'JPEG' };

function outputCell(o) {
  if (!o) return '–';
  return `${o.width}x${o.height} ${FORMAT[o.mimeType] ?? o.mimeType}${o.quality ? ` q${o.quality}` : ''}, ${fmtMiB(o.base64Bytes)} MiB`;
}

export function renderMarkdown(r) {
  const L = [];
  L.push(`### Images bench: Airlock vs Pi (${r.mode}, ${r.rounds} round${r.rounds > 1 ? 's' : ''}${r.gcBetweenReps ? '' : ', no forced GC'})`);
  L.push('');
  const s = r.sharpInfo;
  L.push(`${r.date} · Node ${r.machine.node} · ${r.machine.cpus} x ${r.machine.cpuModel} · load at start ${r.machine.loadAvgAtStart.join(' ')} · ${(r.totalMs / 1000).toFixed(0)} s · Pi coding-agent ${r.versions['@mariozechner/pi-coding-agent']} (photon-node ${r.versions['@silvia-odwyer/photon-node']}) · @airlock/host ${r.versions['@airlock/host']} (sharp ${r.versions.sharp}${s ? `, libvips ${s.vips}, concurrency ${s.concurrency}` : ''})`);
  L.push('');
  L.push('ms per call: median [min–max] over all pooled runs; CPU ms: median user + system time per run; peak RSS MB of the child (in parentheses: above the RSS right after import). ÷ Pi = Airlock ÷ Pi wall time, `airlock` against `pi` and `airlock.resize` against `pi.resize` (lower is better).');
  L.push('');
  L.push('| workload | subject | median ms | min–max ms | runs | first call ms | CPU ms | peak RSS MB | ÷ Pi |');
  L.push('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [id, w] of Object.entries(r.workloads)) {
    for (const key of ['airlock', 'pi', 'airlock.resize', 'pi.resize']) {
      const x = w.subjects[key];
      if (!x) {
        if (key === 'airlock.resize') L.push(`| ${id} | airlock.resize | not run: within the limits, the kernel does not call the resize step | | | | | | |`);
        continue;
      }
      if (x.failed) {
        L.push(`| ${id} | ${key} | FAILED${x.error ? `: ${x.error.slice(0, 160).replace(/\|/g, '\\|')}` : ''} | | | | | | |`);
        continue;
      }
      const ratio = w.ratiosAirlockOverPi[key];
      L.push(`| ${id} | ${key} | ${fmtMs(x.medianMs)} | ${fmtMs(x.minMs)}–${fmtMs(x.maxMs)} | ${x.samples} | ${fmtMs(x.firstCallMs)} | ${fmtMs(x.cpuMedianMs)} | ${fmt(x.peakRssMB, 0)} (+${fmt(x.peakAboveImportMB, 0)}) | ${ratio === undefined ? '' : fmt(ratio)} |`);
    }
  }
  L.push('');
  L.push('What each side hands to the model (the image block of the read result; pixel size from the image\'s own header; MiB of base64; limits: 2000 px a side, 4.50 MiB):');
  L.push('');
  L.push('| workload | input | Airlock output | Pi output | bytes Airlock ÷ Pi |');
  L.push('|---|---|---|---|---:|');
  for (const [id, w] of Object.entries(r.workloads)) {
    const i = w.input;
    L.push(`| ${id} | ${i.width}x${i.height} ${FORMAT[i.mimeType]}, ${fmtMiB(i.base64Bytes)} MiB | ${outputCell(w.subjects.airlock?.output)} | ${outputCell(w.subjects.pi?.output)} | ${fmt(w.outputBytesAirlockOverPi)} |`);
  }
  L.push('');
  L.push('Pi\'s read result does not state a JPEG quality; Airlock\'s note does (q85 etc. above).');
  L.push('');
  const summary = [];
  for (const [id, w] of Object.entries(r.workloads)) {
    const a = w.ratiosAirlockOverPi.airlock;
    if (a === undefined) continue;
    const rz = w.ratiosAirlockOverPi['airlock.resize'];
    summary.push(`- \`${id}\`: a read takes ${fmt(a)}× Pi's wall time (${fmt(w.cpuRatiosAirlockOverPi.airlock)}× its CPU time)${rz === undefined ? '' : `; the resize step alone ${fmt(rz)}× (CPU ${fmt(w.cpuRatiosAirlockOverPi['airlock.resize'])}×)`}; Airlock's image is ${fmt(w.outputBytesAirlockOverPi)}× the size of Pi's.`);
  }
  if (summary.length) L.push('Summary (Airlock ÷ Pi, this run):', '', ...summary, '');
  const problems = Object.entries(r.workloads).flatMap(([id, w]) => w.mismatches.map((m) => `${id}: ${m}`));
  if (problems.length) L.push(`**Problems:** ${problems.join(' · ')}`, '');
  if (r.failures.length) L.push(`**Failed workers:** ${r.failures.map((f) => `${f.job} (round ${f.round}): ${(f.stderr ?? '').trim().split('\n')[0]}`).join(' · ')}`, '');
  const warned = Object.entries(r.workloads).flatMap(([id, w]) => Object.entries(w.subjects).flatMap(([k, x]) => (x.processWarnings ?? []).map((m) => `${id} ${k}: ${m}`)));
  if (warned.length) L.push(`**Process warnings:** ${warned.join(' · ')}`, '');
  L.push('Workloads:', '');
  for (const [id, w] of Object.entries(r.workloads)) L.push(`- \`${id}\`: ${w.title}`);
  L.push('');
  for (const k of ['airlock', 'pi', 'checks', 'timing', 'rss']) L.push(`- ${r.method[k]}`);
  L.push('- Noisy shared machine: compare only numbers from the same run.');
  L.push('');
  return L.join('\n');
}

const README_START = '<!-- images-bench:start -->';
const README_END = '<!-- images-bench:end -->';

/** Replace the generated part of the "Images bench" section of bench/README.md (or append the section). */
function updateReadme(markdown) {
  const text = fs.readFileSync(README, 'utf8');
  const body = [README_START, '', 'Last full run:', '', markdown.replace(/^### .*\n/, '').trim(), '', README_END].join('\n');
  const s = text.indexOf(README_START);
  const e = text.indexOf(README_END);
  const next = s !== -1 && e !== -1 ? text.slice(0, s) + body + text.slice(e + README_END.length) : `${text.trimEnd()}\n\n## Images bench\n\n${body}\n`;
  fs.writeFileSync(README, next);
}

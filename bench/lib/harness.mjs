// Shared pieces of Airlock's benchmarks: statistics, the worker-side timing loop, and the
// parent-side child-process runner. Plain Node ESM, no dependencies.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// ---------------------------------------------------------------------------------------------
// statistics

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Round to `digits` significant decimals, keeping small numbers readable. */
export function round(value, digits = 2) {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function summarize(values) {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    count: values.length,
  };
}

// ---------------------------------------------------------------------------------------------
// worker side

/** Forced, untimed full GC between repetitions (workers run with --expose-gc). */
export const forceGc = typeof globalThis.gc === 'function' ? () => globalThis.gc() : () => {};

/**
 * Time `run(state)` repeatedly. `prepare()` builds fresh inputs for each repetition and is not
 * timed. `warmup` untimed runs come first. Every timed run is preceded by a forced full GC
 * (untimed), so each run pays only for the garbage it makes itself. At least `minReps` and at
 * most `maxReps` timed runs are made; past `minReps` it stops once `budgetMs` of wall time
 * (timed runs plus their GCs and preparation) has been used. A full GC costs ~5 ms with a
 * small heap and ~60 ms after importing Pi, which is why the budget counts it.
 * `gcBetweenReps: false` (profiling) skips the forced GCs so that a CPU profile shows the GC the
 * code itself causes. Returns the wall time of each timed run in microseconds.
 */
export async function measureRuns({ prepare, run, warmup, minReps, maxReps, budgetMs, gcBetweenReps = true }) {
  for (let i = 0; i < warmup; i++) await run(await prepare(i));
  const runUs = [];
  const start = performance.now();
  for (let i = 0; i < maxReps; i++) {
    if (i >= minReps && performance.now() - start >= budgetMs) break;
    const state = await prepare(warmup + i);
    if (gcBetweenReps) forceGc();
    const t0 = performance.now();
    await run(state);
    runUs.push((performance.now() - t0) * 1000);
  }
  return { runUs };
}

/**
 * Record process warnings (MaxListenersExceededWarning and friends) instead of printing them.
 * Returns an async function that lists them as { name, message, count }. Warnings are emitted
 * on process.nextTick, which does not run while a benchmark's promise chain keeps the microtask
 * queue busy, so the lister yields to the event loop once before reading.
 */
export function captureProcessWarnings() {
  const seen = new Map();
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const key = `${warning.name}\u0000${warning.message}`;
    const entry = seen.get(key);
    if (entry) entry.count++;
    else seen.set(key, { name: warning.name, message: String(warning.message).slice(0, 300), count: 1 });
  });
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return [...seen.values()];
  };
}

export function rssMB() {
  return round(process.memoryUsage().rss / 1048576, 1);
}

export function peakRssMB() {
  // maxRSS is in kilobytes
  return round(process.resourceUsage().maxRSS / 1024, 1);
}

/** Worker entry: read the spec from argv[2], run `body(spec)`, write its result to spec.resultFile. */
export function workerMain(body) {
  const spec = JSON.parse(process.argv[2] ?? '{}');
  Promise.resolve()
    .then(() => body(spec))
    .then((result) => {
      fs.writeFileSync(spec.resultFile, JSON.stringify(result));
    })
    .catch((error) => {
      process.stderr.write(`${error?.stack ?? error}\n`);
      process.exitCode = 1;
    });
}

// ---------------------------------------------------------------------------------------------
// parent side

export function machineInfo() {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memGB: round(os.totalmem() / 1073741824, 1),
    loadAvgAtStart: os.loadavg().map((x) => round(x, 2)),
  };
}

/**
 * Run `script` in a fresh `node --expose-gc` child with `spec` as its JSON argument and return
 * the JSON it wrote to spec.resultFile, or { failed, status, stderr }.
 */
export function runWorker(script, spec, { cwd, env, timeoutMs = 300_000, nodeFlags = [] } = {}) {
  const child = spawnSync(process.execPath, ['--expose-gc', ...nodeFlags, script, JSON.stringify(spec)], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 32 * 1024 * 1024,
    timeout: timeoutMs,
  });
  if (child.status !== 0 || !fs.existsSync(spec.resultFile)) {
    return {
      failed: true,
      status: child.status,
      signal: child.signal,
      error: child.error ? String(child.error) : undefined,
      stderr: (child.stderr ?? '').slice(-4000),
    };
  }
  const result = JSON.parse(fs.readFileSync(spec.resultFile, 'utf8'));
  fs.rmSync(spec.resultFile, { force: true });
  if (child.stderr?.trim()) result.stderr = child.stderr.slice(-2000);
  return result;
}

export function ensureDir(dir) {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function relativeToCwd(file) {
  return path.relative(process.cwd(), file) || file;
}

// Policy-stack bench: what path-policy, redact-secrets and the audit log cost per small call,
// each alone on top of the seven tools and all together, for one or more checkouts interleaved
// round by round (so two builds are compared under the same load).
//
//   node bench/policy-stack/main.mjs [--roots A,B] [--rounds 6] [--tool read|edit] [--calls 400]
//
// Per-extension cost = median per-call time of (tools + that extension) − (tools alone).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runWorker } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const WORKER = path.join(HERE, 'worker.mjs');

export const description = 'per-extension cost (path-policy, redact-secrets, audit-log) of a small read or edit, checkouts interleaved';
export const usage = `Usage: pnpm bench policy-stack [options]
  --roots A,B        checkouts to compare (default: this one); each needs its packages built
  --rounds N         worker processes, one after another (default 6)
  --tool read|edit   the small call (default read: 20 short lines; edit: one marker in a 10 KB file)
  --calls N          timed calls per subject and round (default 400)
  --sets a,b         extension sets (default all): tools, no-op observer, path-policy, redact-secrets, audit-log, policy stack, default set`;

const NOOP = path.join(HERE, 'noop-observer');
const SETS = {
  tools: [],
  'no-op observer': { keep: [], extra: [NOOP] },
  'path-policy': ['@airlock/path-policy'],
  'redact-secrets': ['@airlock/redact-secrets'],
  'audit-log': ['@airlock/audit-log'],
  'policy stack': ['@airlock/path-policy', '@airlock/redact-secrets', '@airlock/audit-log'],
  'default set': ['@airlock/path-policy', '@airlock/redact-secrets', '@airlock/audit-log', '@airlock/approval', '@airlock/telemetry'],
};

function parseArgs(argv) {
  const o = { roots: [ROOT], rounds: 6, tool: 'read', calls: 400, sets: Object.keys(SETS) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--roots') o.roots = v().split(',').map((r) => path.resolve(r));
    else if (a === '--rounds') o.rounds = Number(v());
    else if (a === '--tool') o.tool = v();
    else if (a === '--calls') o.calls = Number(v());
    else if (a === '--sets') o.sets = v().split(',');
    else if (a === '--no-build' || a === '--no-install') continue;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

export async function main(argv) {
  const o = parseArgs(argv);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'airlock-bench-policy-'));
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  // A small read: 20 short lines. A small edit: a 10 KB file with one marker toggled.
  fs.writeFileSync(path.join(ws, 'small.txt'), Array.from({ length: 20 }, (_, i) => `line ${i} of a small file\n`).join(''));
  const log = (...a) => console.error('[bench:policy-stack]', ...a);
  const samples = new Map();
  const started = new Date();
  const load0 = os.loadavg();
  for (let r = 1; r <= o.rounds; r++) {
    // One worker per round with every (checkout, set) in it, taking turns batch by batch (worker.mjs);
    // the order of the subjects alternates from round to round.
    let subjects = o.roots.flatMap((root) => o.sets.map((set) => ({ root, set, ...(Array.isArray(SETS[set]) ? { keep: SETS[set] } : SETS[set]) })));
    if (r % 2 === 0) subjects = subjects.reverse();
    const spec = {
      tmp, workspace: ws, tool: o.tool, readFile: 'small.txt', subjects,
      warmup: 200, batches: Math.max(4, Math.round(o.calls / 20)), perBatch: 20, resultFile: path.join(tmp, `r-${r}.json`),
    };
    const res = runWorker(WORKER, spec, { cwd: ROOT, timeoutMs: 1_800_000 });
    if (res.failed) throw new Error(`round ${r} failed:\n${res.stderr}`);
    subjects.forEach(({ root, set }, i) => {
      const key = `${root}\u0000${set}`;
      if (!samples.has(key)) samples.set(key, []);
      samples.get(key).push(...res.perCallUs[i]);
      log(`[${r}/${o.rounds}] ${path.basename(root)} ${set}: ${(median(res.perCallUs[i]) / 1000).toFixed(3)} ms/call  (${res.extensions[i].length} extensions)`);
    });
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  const lines = [];
  lines.push(`${started.toISOString()} · Node ${process.version} · load at start ${load0.map((x) => x.toFixed(2)).join(' ')} · ${o.tool}, ${o.rounds} rounds interleaved, ms per call (median of 20-call batch means; every checkout and set in one process per round, taking turns batch by batch)`);
  lines.push('');
  lines.push(`| set | ${o.roots.map((r) => `${path.basename(r)} ms | ${path.basename(r)} − tools`).join(' | ')} |`);
  lines.push(`|---|${o.roots.map(() => '---:|---:').join('|')}|`);
  for (const set of o.sets) {
    const cells = o.roots.map((root) => {
      const m = median(samples.get(`${root}\u0000${set}`)) / 1000;
      const base = median(samples.get(`${root}\u0000tools`) ?? [Number.NaN]) / 1000;
      return `${m.toFixed(3)} | ${set === 'tools' ? '' : (m - base).toFixed(3)}`;
    });
    lines.push(`| ${set} | ${cells.join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });

// A/B of the sandbox's walk: two builds (two checkouts, each bundled by bundle.mjs) over
// workspaces of 0, 1k, 10k, 50k files and a 30-deep tree, interleaved round by round in random
// order, one fresh host per run. Times the first command's wrap (the walk before it) and release
// (the walk after it), right after the host opens and after 1 s idle (as when a model answers
// first), and the median of the later commands. Prints a markdown table; --json <file> keeps the rows.
//   node bench/walk/ab.mjs --old /work/wt/base --new . [--rounds 3] [--later 10] [--shapes empty,1k] [--cache /tmp/walk-bench-ws]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../lib/harness.mjs';
import { SHAPES, workspace } from './workspace.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const builds = { old: path.resolve(opt('old', '')), new: path.resolve(opt('new', '.')) };
const rounds = Number(opt('rounds', 3));
const later = Number(opt('later', 10));
const shapes = opt('shapes', Object.keys(SHAPES).join(',')).split(',');
const cacheDir = opt('cache', path.join(os.tmpdir(), 'walk-bench-ws'));
const idles = [0, 1000];

const bundles = {};
for (const [label, dir] of Object.entries(builds)) {
  bundles[label] = path.join(dir, 'packages/cli/dist/walk-bench.mjs');
  execFileSync(process.execPath, [path.join(here, 'bundle.mjs'), dir, bundles[label]], { stdio: 'inherit' });
}
const spaces = Object.fromEntries(shapes.map((s) => [s, workspace(cacheDir, s)]));

const runs = [];
const failures = [];
for (let round = 0; round < rounds; round++) {
  for (const shape of shapes) {
    for (const idle of idles) {
      const order = Math.random() < 0.5 ? ['old', 'new'] : ['new', 'old'];
      for (const label of order) {
        let out;
        try {
          out = execFileSync(process.execPath, [path.join(here, 'worker.mjs'), bundles[label], spaces[shape], String(idle), String(later)], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (error) {
          // A walk past its bound (20 s on a loaded machine) fails the command: counted as such.
          const why = /SandboxPlanError: ([^\n]{0,120})/.exec(String(error.stderr))?.[1] ?? String(error.message).slice(0, 200);
          failures.push({ round, shape, idle, label, why });
          process.stderr.write(`round ${round + 1}/${rounds} ${shape} idle ${idle} ${label}: FAILED ${why}\n`);
          continue;
        }
        const r = JSON.parse(out.trim().split('\n').at(-1));
        const laterOf = (field) => median(r.later.map((x) => x[field]));
        runs.push({ round, shape, idle, label, open: r.openMs, firstWrap: r.first.wrap, firstRelease: r.first.release, laterWrap: laterOf('wrap'), laterRelease: laterOf('release'), firstWrapCpu: r.first.wrapCpu, firstReleaseCpu: r.first.releaseCpu, laterWrapCpu: laterOf('wrapCpu'), laterReleaseCpu: laterOf('releaseCpu') });
        process.stderr.write(`round ${round + 1}/${rounds} ${shape} idle ${idle} ${label}: first ${r.first.wrap.toFixed(1)} ms, later ${median(r.later.map((x) => x.wrap)).toFixed(2)} ms\n`);
      }
    }
  }
}

const fmt = (v) => (Number.isNaN(v) ? 'failed' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const cell = (shape, idle, label, field) => median(runs.filter((r) => r.shape === shape && r.idle === idle && r.label === label).map((r) => r[field]));
const table = (suffix, title) => {
  const lines = [
    `${title}\n`,
    `| workspace | first wrap, at open: old → new | first wrap, 1 s after open: old → new | first release: old → new | later wrap: old → new | later release: old → new |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const shape of shapes) {
    const pair = (idle, field) => {
      const o = cell(shape, idle, 'old', field + suffix);
      const n = cell(shape, idle, 'new', field + suffix);
      return `${fmt(o)} → **${fmt(n)}** (${(n / o).toFixed(2)}×)`;
    };
    lines.push(`| ${shape} | ${pair(0, 'firstWrap')} | ${pair(1000, 'firstWrap')} | ${pair(0, 'firstRelease')} | ${pair(0, 'laterWrap')} | ${pair(0, 'laterRelease')} |`);
  }
  return lines.join('\n');
};
console.log(`${rounds} rounds, ${later} later calls per host, medians in ms; load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
console.log(table('', 'Wall time, ms (medians)'));
console.log();
console.log(table('Cpu', 'Processor time of the host process (user + system), ms (medians)'));
for (const f of failures) console.log(`\nFailed: round ${f.round + 1}, ${f.shape}, idle ${f.idle} ms, ${f.label}: ${f.why}`);
const json = opt('json', undefined);
if (json !== undefined) fs.writeFileSync(json, JSON.stringify({ builds, rounds, later, runs, failures }, null, 1));

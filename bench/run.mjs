#!/usr/bin/env node
// Airlock's benchmarks: `pnpm bench <name> [options]` (root script "bench": "node bench/run.mjs").
// Without a name it lists the benches. Before a bench runs, this builds the workspace
// (`pnpm -s build`) and installs the pinned peer (Pi) into bench/peer with npm when it is missing.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const PEER_DIR = path.join(BENCH_DIR, 'peer');

/** name -> module exporting { description, usage, main(argv) }, plus what it needs first. */
const BENCHES = {
  kernel: { module: './kernel/main.mjs', needs: { build: true, peer: true } },
  agent: { module: './agent/main.mjs', needs: { build: true, peer: true } },
  cli: { module: './cli/main.mjs', needs: { build: true, peer: true } },
  tools: { module: './tools/main.mjs', needs: { build: true, peer: true } },
  sdk: { module: './sdk/main.mjs', needs: { build: true, peer: true } },
  images: { module: './images/main.mjs', needs: { build: true, peer: true } },
  redact: { module: './redact/main.mjs', needs: { build: false, peer: false } },
  telemetry: { module: './telemetry/main.mjs', needs: { build: true, peer: false } },
  mcp: { module: './serve/mcp.mjs', needs: { build: true, peer: false } },
  'serve-rpc': { module: './serve/rpc.mjs', needs: { build: true, peer: false } },
  output: { module: './output/main.mjs', needs: { build: false, peer: false } },
  'policy-stack': { module: './policy-stack/main.mjs', needs: { build: true, peer: false } },
  sandbox: { module: './sandbox/main.mjs', needs: { build: true, peer: true } },
};

const COMMON_OPTIONS = `common options (before or after the bench's own):
  --no-build         skip \`pnpm -s build\` (use the dist already built)
  --no-install       never run npm ci for bench/peer (fail if it is missing)`;

function log(message) {
  console.error(`[bench] ${message}`);
}

async function loadBench(name) {
  return import(pathToFileURL(path.join(BENCH_DIR, BENCHES[name].module)).href);
}

async function listBenches() {
  const lines = ['Usage: pnpm bench <name> [options]', '', 'Benches:'];
  for (const name of Object.keys(BENCHES)) {
    const mod = await loadBench(name);
    lines.push(`  ${name.padEnd(10)} ${mod.description}`);
  }
  lines.push('', 'Options of each bench: pnpm bench <name> --help', COMMON_OPTIONS);
  console.log(lines.join('\n'));
}

function run(command, args, options) {
  const res = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (res.error) throw new Error(`could not run ${command}: ${res.error.message}`);
  return res.status ?? 1;
}

/** The pins in bench/peer/package.json match what is installed in bench/peer/node_modules? */
function peerInstallMatchesPins() {
  const pins = JSON.parse(fs.readFileSync(path.join(PEER_DIR, 'package.json'), 'utf8')).dependencies;
  for (const [name, version] of Object.entries(pins)) {
    const file = path.join(PEER_DIR, 'node_modules', name, 'package.json');
    if (!fs.existsSync(file)) return false;
    if (JSON.parse(fs.readFileSync(file, 'utf8')).version !== version) return false;
  }
  return true;
}

function ensurePeer({ install }) {
  const modules = path.join(PEER_DIR, 'node_modules');
  if (fs.existsSync(modules) && peerInstallMatchesPins()) return;
  if (!install) throw new Error(`${path.relative(ROOT, modules)} is missing or does not match bench/peer/package.json (and --no-install was given)`);
  log(fs.existsSync(modules) ? 'bench/peer/node_modules does not match the pins: reinstalling with npm ci' : 'installing the pinned peer (Pi) into bench/peer with npm ci');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const status = run(npm, ['ci', '--prefix', path.relative(ROOT, PEER_DIR), '--no-audit', '--no-fund'], { cwd: ROOT });
  if (status !== 0) throw new Error(`npm ci --prefix bench/peer failed (exit ${status})`);
}

function build() {
  log('building the workspace: pnpm -s build');
  const pnpm = process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm';
  const status = run(pnpm, ['-s', 'build'], { cwd: ROOT });
  if (status !== 0) throw new Error(`pnpm -s build failed (exit ${status})`);
}

async function main(argv) {
  const args = argv.filter((a) => a !== '--');
  const name = args.find((a) => !a.startsWith('-'));
  if (!name) {
    if (args.length && !args.includes('--help') && !args.includes('-h')) {
      console.error(`No bench named. Options given without one: ${args.join(' ')}\n`);
      await listBenches();
      return 2;
    }
    await listBenches();
    return 0;
  }
  if (!Object.hasOwn(BENCHES, name)) {
    console.error(`Unknown bench "${name}". Available: ${Object.keys(BENCHES).join(', ')}. Run \`pnpm bench\` for the list.`);
    return 2;
  }
  const rest = args.filter((a) => a !== name);
  const mod = await loadBench(name);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`${mod.description}\n\n${mod.usage}\n${COMMON_OPTIONS}`);
    return 0;
  }
  const doBuild = !rest.includes('--no-build');
  const install = !rest.includes('--no-install');
  const benchArgs = rest.filter((a) => a !== '--no-build' && a !== '--no-install');
  const { needs } = BENCHES[name];
  if (needs.peer) ensurePeer({ install });
  if (needs.build && doBuild) build();
  await mod.main(benchArgs);
  return process.exitCode ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`[bench] error: ${error?.message ?? error}`);
    if (process.env.BENCH_DEBUG) console.error(error?.stack);
    process.exitCode = 1;
  },
);

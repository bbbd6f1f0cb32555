#!/usr/bin/env node
// The root scripts (`npm start`, `npm test`, `pnpm test:all` …) run their command through here, so
// that on a machine with only Node and npm the first `npm start` brings what the command needs:
// pnpm (through npx, when pnpm 12.21.0 is not on the PATH), the workspace's packages
// (`pnpm install --frozen-lockfile`, when node_modules is missing or not what pnpm-lock.yaml says)
// and the build (`pnpm build`, when it is missing or its sources changed). Later runs check both
// in about a tenth of a second and start the command at once.
//
//   node scripts/bootstrap.mjs <command> [args…]   e.g. node scripts/bootstrap.mjs airlock run --demo
//   node scripts/bootstrap.mjs --dry-run           says what it would do, and why, without doing it
//
// This file checks the Node version before anything else is loaded: the modules it loads next may
// use what an older Node lacks, and would fail with an error that does not say "update Node".
import { readFileSync } from 'node:fs';
import { nodeVersionProblem } from './bootstrap/node-version.mjs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const problem = nodeVersionProblem(process.versions.node, manifest.engines && manifest.engines.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(`bootstrap: ${problem}\n`);
  process.exit(1);
}
const { main } = await import('./bootstrap/main.mjs');
process.exitCode = await main(process.argv.slice(2));

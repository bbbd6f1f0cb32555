#!/usr/bin/env node
// The `airlock` command. Runs the single-file bundle that `pnpm build` makes (fast start-up),
// or the compiled modules when only `tsc -b` has run.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const candidates = ['../dist/airlock.mjs', '../dist/main.js'].map((p) => new URL(p, import.meta.url));
const entry = candidates.find((url) => existsSync(fileURLToPath(url)));
if (entry === undefined) {
  process.stderr.write('airlock: the CLI is not built yet. Run `pnpm build` in the Airlock workspace (or use `pnpm airlock …`, which builds first).\n');
  process.exit(2);
}
const { run } = await import(entry.href);
process.exitCode = await run(process.argv.slice(2));

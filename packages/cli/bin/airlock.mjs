#!/usr/bin/env node
// The `airlock` command. Runs the built CLI (`pnpm build` compiles it; `pnpm airlock` builds first).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('airlock: the CLI is not built yet. Run `pnpm build` in the Airlock workspace (or use `pnpm airlock …`, which builds first).\n');
  process.exit(2);
}
const { run } = await import(entry.href);
process.exitCode = await run(process.argv.slice(2));

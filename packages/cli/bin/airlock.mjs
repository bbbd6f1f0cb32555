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
// `airlock … | head` closes the pipe early: that is the reader saying "enough", not a failure.
// Without this, Node throws EPIPE from the stream and prints a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { run } = await import(entry.href);
process.exitCode = await run(process.argv.slice(2));

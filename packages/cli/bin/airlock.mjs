#!/usr/bin/env node
// The `airlock` command. Runs the bundle that `pnpm build` makes (fast start-up),
// or the compiled modules when only `tsc -b` has run.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// Node 22.1 and later keep V8's compiled code of the bundle's chunks on disk (checked against the
// source, so a rebuilt or upgraded CLI recompiles), which spares most of a start's compile time.
// Node 20 has no such cache for ES modules; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

const candidates = ['../dist/airlock.mjs', '../dist/index.js'].map((p) => new URL(p, import.meta.url));
const entry = candidates.find((url) => existsSync(fileURLToPath(url)));
if (entry === undefined) {
  process.stderr.write('airlock: the CLI is not built yet. In the Airlock clone, run `npm run airlock -- <arguments>`: it installs and builds what is missing, then runs the command.\n');
  process.exit(2);
}
const { run, noteReaderGone } = await import(entry.href);
// `airlock … | head` closes the pipe early: the reader saying "enough", not a failure. What runs
// stops as on Ctrl-C and still writes its records (audit log, transcript); the exit code stays
// the command's own. Leaving at once here once lost the record of a call and exited 0.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return noteReaderGone();
    throw error;
  });
}
process.exitCode = await run(process.argv.slice(2));

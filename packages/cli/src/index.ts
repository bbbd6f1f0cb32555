/** @airlock/cli — the `airlock` command, also callable in-process: `run(argv, io)` returns the exit code. */
export { run, type GlobalOptions } from './main.js';
export { EXIT, noteReaderGone, processIO, type IO } from './io.js';

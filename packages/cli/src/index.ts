/** @airlock/cli — the `airlock` command, also callable in-process: `run(argv, io)` returns the exit code. */
export { run } from './main.js';
export type { GlobalOptions } from './global-options.js';
export { EXIT, noteReaderGone, processIO, type IO } from './io.js';

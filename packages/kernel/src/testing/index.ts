/**
 * @airlock/kernel/testing — what tool authors need to test a tool without a host: a ToolContext
 * with an in-memory spill store, and a harness that runs calls through a real kernel (validation,
 * hooks, normalization), so tests see exactly what a model would; and temp folders that remove
 * themselves when the test finishes; and text a terminal would obey or hide, for display tests.
 */
export { createTestContext, type TestContext, type TestContextOptions } from './fake-context.js';
export { createToolHarness, type ToolHarness, type ToolHarnessOptions } from './tool-harness.js';
export { makeTempDir, removeTree } from './temp-dir.js';
export { scaledMs } from './time-scale.js';
export { builtFile } from './built.js';
export { createTestApi, createTestHost, type TestHost } from './test-api.js';
export { bubblewrapWorks } from './bubblewrap.js';
export { REACH_PROBE, socketListeners, visibleSocketFiles, writeReachProbe, type SocketListeners } from './unix-sockets.js';
export { around, HOSTILE_CHARACTERS, HOSTILE_SAMPLES, HOSTILE_SEQUENCES, hostileText, rawHostile, spoofedLines, SPOOF_MARK, visibleForm, type HostileSample } from './hostile-text.js';
export { catastrophicPatterns, type CatastrophicPattern } from './catastrophic-patterns.js';

// Preloaded into a server the bench spawns (NODE_OPTIONS="--expose-gc --require …"): on SIGUSR2
// it runs a full GC and writes the heap in use, in bytes, to the file AIRLOCK_BENCH_HEAP_FILE.
// Resident memory alone cannot tell a leak from a heap V8 has not collected yet.
const fs = require('node:fs');

process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  fs.writeFileSync(process.env.AIRLOCK_BENCH_HEAP_FILE, String(process.memoryUsage().heapUsed));
});

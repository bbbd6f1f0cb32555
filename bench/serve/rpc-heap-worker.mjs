// Worker of bench/serve/rpc.mjs (run with --expose-gc): the RPC server library over in-memory
// streams in front of a real host, `rounds` rounds of 100 tools/call requests in a row, and the
// heap after two full GCs after each round. RSS alone cannot tell a leak from a heap V8 has not
// collected yet; the heap after GC can. Prints one JSON line: [{round, heapMiB, medianMs}].
import { PassThrough } from 'node:stream';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, round } from '../lib/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [project, home, state, roundsArg] = process.argv.slice(2);
const { openHost } = await import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href);
const { createRpcServer } = await import(pathToFileURL(path.join(ROOT, 'packages/serve/dist/index.js')).href);

const input = new PassThrough();
const output = new PassThrough();
const server = createRpcServer({ input, output, log: () => {} });
const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: state, PATH: process.env.PATH };
const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, ui: server.ui });
const served = server.serve(host);
const pending = new Map();
let rest = '';
output.on('data', (chunk) => {
  const lines = (rest + chunk.toString('utf8')).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  }
});
let id = 0;
const call = () =>
  new Promise((resolve) => {
    const mine = ++id;
    pending.set(mine, resolve);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method: 'tools/call', params: { name: 'read', arguments: { path: 'small.txt' } } })}\n`);
  });

for (let i = 0; i < 100; i++) await call(); // warm-up
const rounds = [];
for (let r = 1; r <= Number(roundsArg); r++) {
  const times = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  globalThis.gc();
  globalThis.gc();
  rounds.push({ round: r, heapMiB: round(process.memoryUsage().heapUsed / 1048576, 2), medianMs: round(median(times), 3) });
}
input.end();
await served;
await host.close();
process.stdout.write(`${JSON.stringify(rounds)}\n`);

// Kernel bench, Airlock side: one workload in this process (see main.mjs for the spec).
//
// Imports the BUILT kernel (packages/kernel/dist, made by `pnpm -s build`), registers a no-op
// tool with a one-string-property schema (and its twins for the re-check workloads, `spec.mix`),
// optionally 10 tool_call + 10 tool_result no-op handlers in phase "transform", and times either
//   kind "batch": one kernel.executeBatch(calls, { signal, executionMode, onEvent }) of N calls
//   kind "loop":  N kernel.executeToolCall(call, { signal, onEvent }) awaited one after another
// Each repetition gets fresh call objects and a fresh AbortController (both untimed).

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { captureProcessWarnings, measureRuns, peakRssMB, rssMB, workerMain } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const KERNEL_DIR = path.resolve(HERE, '../../packages/kernel');
// main.mjs points this at a snapshot of dist taken when the bench started (others may rebuild
// the live dist meanwhile); run by hand, the worker uses the live dist.
const KERNEL_ENTRY = process.env.AIRLOCK_BENCH_KERNEL_ENTRY ?? path.join(KERNEL_DIR, 'dist/index.js');

workerMain(async (spec) => {
  const warnings = captureProcessWarnings();
  const t0 = performance.now();
  const kernelModule = await import(pathToFileURL(KERNEL_ENTRY).href);
  // typebox is a dependency of the kernel, not of the bench: resolve it from the kernel package.
  const typeboxEntry = createRequire(path.join(KERNEL_DIR, 'package.json')).resolve('typebox');
  const typeboxModule = await import(pathToFileURL(typeboxEntry).href);
  const importMs = performance.now() - t0;
  const rssAfterImportMB = rssMB();

  const Type = typeboxModule.default ?? typeboxModule.Type;
  const { createKernel } = kernelModule;
  const defineTool = kernelModule.defineTool ?? ((tool) => tool);
  if (typeof createKernel !== 'function') throw new Error(`${KERNEL_ENTRY} does not export createKernel (exports: ${Object.keys(kernelModule).join(', ')})`);

  const kernel = createKernel({ cwd: process.cwd() });
  const noop = (name, resources) =>
    defineTool({
      name,
      label: 'No-op',
      description: 'Returns "ok" at once.',
      parameters: Type.Object({ path: Type.String() }),
      ...(resources === undefined ? {} : { resources }),
      execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    });
  // Declares a read like the built-in read tool, so a batch of these runs side by side. Its twins:
  // one that declares a write (the calls after it are judged again) and one that declares nothing
  // (the kernel then assumes it may change files).
  kernel.registry.register(noop('noop', ({ path: p }) => [{ kind: 'fs.read', path: p }]), { source: 'sdk' });
  kernel.registry.register(noop('noop_write', ({ path: p }) => [{ kind: 'fs.write', path: p }]), { source: 'sdk' });
  kernel.registry.register(noop('noop_undeclared', undefined), { source: 'sdk' });
  const nameOf = (i) => (spec.mix === 'undeclared' ? 'noop_undeclared' : spec.mix === 'write-first' && i === 0 ? 'noop_write' : 'noop');

  const counters = { toolCall: 0, toolResult: 0, events: 0 };
  for (let k = 0; k < spec.handlers; k++) {
    kernel.on(
      'tool_call',
      () => {
        counters.toolCall++;
        return undefined;
      },
      { name: `bench/call-${k}`, phase: 'transform' },
    );
    kernel.on(
      'tool_result',
      () => {
        counters.toolResult++;
        return undefined;
      },
      { name: `bench/result-${k}`, phase: 'transform' },
    );
  }
  const onEvent = () => {
    counters.events++;
  };

  const makeCalls = () => {
    const calls = new Array(spec.n);
    for (let i = 0; i < spec.n; i++) calls[i] = { id: `call_${i}`, name: nameOf(i), arguments: { path: 'x' } };
    return calls;
  };

  let lastMessages;
  const run =
    spec.kind === 'loop'
      ? async ({ calls, controller }) => {
          const messages = new Array(calls.length);
          const options = { signal: controller.signal, onEvent };
          for (let i = 0; i < calls.length; i++) messages[i] = await kernel.executeToolCall(calls[i], options);
          lastMessages = messages;
        }
      : async ({ calls, controller }) => {
          const { messages } = await kernel.executeBatch(calls, { signal: controller.signal, executionMode: spec.mode, onEvent });
          lastMessages = messages;
        };

  const { runUs } = await measureRuns({
    prepare: () => {
      counters.toolCall = 0;
      counters.toolResult = 0;
      counters.events = 0;
      return { calls: makeCalls(), controller: new AbortController() };
    },
    run,
    warmup: spec.warmup,
    minReps: spec.minReps,
    maxReps: spec.maxReps,
    budgetMs: spec.budgetMs,
    gcBetweenReps: spec.gcBetweenReps !== false,
  });

  // Untimed checks on the last run.
  const problems = [];
  if (lastMessages.length !== spec.n) problems.push(`expected ${spec.n} results, got ${lastMessages.length}`);
  const bad = lastMessages.filter((m) => m.isError || (m.outcome !== undefined && m.outcome !== 'ok'));
  if (bad.length) problems.push(`${bad.length} results are not ok: ${bad[0].outcome} ${bad[0].content?.[0]?.text}`);
  if (lastMessages.some((m, i) => m.toolCallId !== `call_${i}`)) problems.push('results are not in call order');
  if (lastMessages.some((m) => m.content?.[0]?.text !== 'ok')) problems.push('a result does not carry the text "ok"');
  if (spec.handlers > 0) {
    const want = spec.n * spec.handlers;
    if (counters.toolCall !== want || counters.toolResult !== want) problems.push(`handler invocations ${counters.toolCall}/${counters.toolResult}, expected ${want} each`);
  }

  return {
    side: 'airlock',
    kind: spec.kind,
    n: spec.n,
    handlers: spec.handlers,
    mix: spec.mix ?? 'read',
    mode: spec.kind === 'loop' ? 'sequential (awaited one by one)' : spec.mode,
    entry: spec.kind === 'loop' ? 'kernel.executeToolCall() x N, awaited in turn' : `kernel.executeBatch(N calls, { executionMode: "${spec.mode}" })`,
    kernelEntry: path.relative(path.resolve(HERE, '../..'), KERNEL_ENTRY),
    warmup: spec.warmup,
    runUs,
    observed: {
      eventsPerRun: counters.events,
      results: lastMessages.length,
      handlerInvocationsPerRun: { tool_call: counters.toolCall, tool_result: counters.toolResult },
      exports: Object.keys(kernelModule).sort(),
    },
    problems,
    importMs,
    rssAfterImportMB,
    peakRssMB: peakRssMB(),
    warnings: await warnings(),
  };
});

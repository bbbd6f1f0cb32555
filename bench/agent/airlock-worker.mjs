// Agent bench, Airlock side: one workload in this process (see main.mjs for the spec).
//
// Imports the BUILT agent and kernel (packages/*/dist, made by `pnpm -s build`): a kernel with
// one no-op tool, the loop (`runAgentLoop`) over `kernelRunner(kernel)`, and a scripted model:
//   provider "scripted": the agent's scripted provider (start, one delta per block, toolcall
//                        start/delta/end, done), like a real streaming provider;
//   provider "direct":   a minimal provider that hands over each message at once (start + done).
// Timed: the whole run, from the prompt to agent_end.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { captureProcessWarnings, measureRuns, peakRssMB, rssMB, workerMain } from '../lib/harness.mjs';
import { script } from './script.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const KERNEL_DIR = path.resolve(HERE, '../../packages/kernel');
const AGENT_DIR = path.resolve(HERE, '../../packages/agent');

workerMain(async (spec) => {
  const warnings = captureProcessWarnings();
  const t0 = performance.now();
  const kernelModule = await import(pathToFileURL(path.join(KERNEL_DIR, 'dist/index.js')).href);
  const agent = await import(pathToFileURL(path.join(AGENT_DIR, 'dist/index.js')).href);
  const typeboxModule = await import(pathToFileURL(createRequire(path.join(KERNEL_DIR, 'package.json')).resolve('typebox')).href);
  const importMs = performance.now() - t0;
  const rssAfterImportMB = rssMB();
  const Type = typeboxModule.default ?? typeboxModule.Type;

  const kernel = kernelModule.createKernel({ cwd: process.cwd() });
  kernel.registry.register(
    {
      name: 'noop',
      label: 'No-op',
      description: 'Returns "ok" at once.',
      parameters: Type.Object({ path: Type.String() }),
      resources: ({ path: p }) => [{ kind: 'fs.read', path: p }],
      execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    },
    { source: 'sdk' },
  );
  const runner = agent.kernelRunner(kernel);
  const entries = agent.checkScript(script(spec), 'bench');
  const counters = { events: 0 };
  const onEvent = () => {
    counters.events++;
  };

  const direct = () => {
    let played = 0;
    return {
      id: 'direct',
      async *stream(request) {
        const entry = entries[played++];
        const content = entry.content.map((b, i) => (b.type === 'toolCall' ? { type: 'toolCall', id: b.id ?? `call_${played}_${i + 1}`, name: b.name, arguments: b.arguments } : b));
        const message = { role: 'assistant', content, stopReason: content.some((b) => b.type === 'toolCall') ? 'toolUse' : 'stop', provider: 'direct', model: request.model, timestamp: Date.now() };
        yield { type: 'start', message: { ...message, content: [] } };
        yield { type: 'done', message };
      },
    };
  };
  const makeProvider = spec.provider === 'direct' ? direct : () => agent.createScriptedProvider(entries);

  let last;
  const { runUs } = await measureRuns({
    prepare: () => {
      counters.events = 0;
      return { provider: makeProvider(), controller: new AbortController() };
    },
    run: async ({ provider, controller }) => {
      last = await agent.runAgentLoop([agent.userMessage('go')], {
        provider,
        model: 'bench',
        runner,
        systemPrompt: '',
        maxTurns: 1_000,
        signal: controller.signal,
        onEvent,
      });
    },
    warmup: spec.warmup,
    minReps: spec.minReps,
    maxReps: spec.maxReps,
    budgetMs: spec.budgetMs,
    gcBetweenReps: spec.gcBetweenReps !== false,
  });

  const results = last.messages.filter((m) => m.role === 'toolResult');
  const expected = spec.turns * spec.calls;
  const problems = [];
  if (last.status !== 'done') problems.push(`run ended ${last.status}: ${last.reason}`);
  if (results.length !== expected) problems.push(`expected ${expected} tool results, got ${results.length}`);
  if (results.some((m) => m.outcome !== 'ok')) problems.push(`a result is not ok: ${results.find((m) => m.outcome !== 'ok')?.content?.[0]?.text}`);
  return {
    side: 'airlock',
    provider: spec.provider,
    runUs,
    observed: { eventsPerRun: counters.events, messagesPerRun: last.messages.length, toolResults: results.length, turns: last.turns },
    problems,
    importMs,
    rssAfterImportMB,
    peakRssMB: peakRssMB(),
    warnings: await warnings(),
  };
});

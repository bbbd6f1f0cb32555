// Agent bench, Pi side: one workload in this process (see main.mjs for the spec). Pi's
// `runAgentLoop` with a no-op tool and a counting no-op emit callback, fed the same conversation:
//   provider "faux":   pi-ai's faux provider (one delta per content block);
//   provider "direct": a streamFn that hands over each message at once (start + done).
// Timed: the whole loop run.

import { captureProcessWarnings, measureRuns, peakRssMB, rssMB, workerMain } from '../lib/harness.mjs';
import { script } from './script.mjs';

workerMain(async (spec) => {
  const warnings = captureProcessWarnings();
  const t0 = performance.now();
  const { core, ai, pca } = await import('../peer/pi.mjs');
  const importMs = performance.now() - t0;
  const rssAfterImportMB = rssMB();

  const faux = ai.registerFauxProvider({ tokenSize: { min: 1_000_000, max: 1_000_000 } });
  const model = faux.getModel();
  const toPi = () =>
    script(spec).map((entry) => {
      const calls = entry.content.filter((b) => b.type === 'toolCall');
      if (calls.length === 0) return ai.fauxAssistantMessage(entry.content[0].text);
      return ai.fauxAssistantMessage(
        calls.map((c) => ai.fauxToolCall(c.name, c.arguments, { id: c.id })),
        { stopReason: 'toolUse' },
      );
    });
  const queue = [];
  const directStream = () => {
    const message = queue.shift();
    if (!message) throw new Error('bench: the direct stream ran out of scripted messages');
    const stream = ai.createAssistantMessageEventStream();
    stream.push({ type: 'start', partial: { ...message, content: [] } });
    stream.push({ type: 'done', reason: message.stopReason, message });
    stream.end(message);
    return stream;
  };
  const direct = spec.provider === 'direct';
  const tool = {
    name: 'noop',
    label: 'No-op',
    description: 'Returns "ok" at once.',
    parameters: ai.Type.Object({ path: ai.Type.String() }),
    execute: async () => ({ content: [{ type: 'text', text: 'ok' }], details: undefined }),
  };
  const config = { model, convertToLlm: pca.convertToLlm, toolExecution: 'parallel' };
  const counters = { events: 0 };
  const onEvent = () => {
    counters.events++;
  };

  let last;
  const { runUs } = await measureRuns({
    prepare: () => {
      if (direct) queue.splice(0, queue.length, ...toPi());
      else faux.setResponses(toPi());
      counters.events = 0;
      return { prompts: [{ role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: Date.now() }], controller: new AbortController() };
    },
    run: async ({ prompts, controller }) => {
      last = await core.runAgentLoop(prompts, { systemPrompt: '', messages: [], tools: [tool] }, config, onEvent, controller.signal, direct ? directStream : undefined);
    },
    warmup: spec.warmup,
    minReps: spec.minReps,
    maxReps: spec.maxReps,
    budgetMs: spec.budgetMs,
    gcBetweenReps: spec.gcBetweenReps !== false,
  });
  faux.unregister();

  const results = last.filter((m) => m.role === 'toolResult');
  const expected = spec.turns * spec.calls;
  const problems = [];
  if (results.length !== expected) problems.push(`expected ${expected} tool results, got ${results.length}`);
  if (results.some((m) => m.isError)) problems.push(`a result is an error: ${results.find((m) => m.isError)?.content?.[0]?.text}`);
  if (last.at(-1)?.stopReason !== 'stop') problems.push(`the run ended with stopReason ${last.at(-1)?.stopReason}`);
  return {
    side: 'pi',
    provider: spec.provider,
    runUs,
    observed: { eventsPerRun: counters.events, messagesPerRun: last.length, toolResults: results.length },
    problems,
    importMs,
    rssAfterImportMB,
    peakRssMB: peakRssMB(),
    warnings: await warnings(),
  };
});

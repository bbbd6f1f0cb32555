// Kernel bench, Pi side: one workload in this process (see main.mjs for the spec).
//
// Pi has no public single-call API, so every workload goes through its agent loop: a scripted
// assistant message carrying N tool calls to a no-op tool, then a final text. Timed: the whole
// loop run. Two providers feed the loop:
//   provider "faux":   pi-ai's faux provider (one delta per content block). Its streaming is part
//                      of the figure; in pi-ai 0.73.1 it grows quadratically with N.
//   provider "direct": a minimal streamFn that hands the loop the scripted message at once
//                      (a "start" and a "done" event, like a non-streaming API), so that what is
//                      left is the loop's own work.
// kind "empty" runs the same script without tool calls (one turn, final text only): the fixed
// cost of one loop run, subtracted by the parent to get the "−loop" figures.

import { captureProcessWarnings, measureRuns, peakRssMB, rssMB, workerMain } from '../lib/harness.mjs';

workerMain(async (spec) => {
  const warnings = captureProcessWarnings();
  const t0 = performance.now();
  const { core, ai, pca } = await import('../peer/pi.mjs');
  const importMs = performance.now() - t0;
  const rssAfterImportMB = rssMB();

  const faux = ai.registerFauxProvider({ tokenSize: { min: 1_000_000, max: 1_000_000 } });
  const model = faux.getModel();
  const direct = spec.provider === 'direct';
  const directQueue = [];
  const directStream = () => {
    const message = directQueue.shift();
    if (!message) throw new Error('bench: the direct stream ran out of scripted messages');
    const stream = ai.createAssistantMessageEventStream();
    stream.push({ type: 'start', partial: { ...message, content: [] } });
    stream.push({ type: 'done', reason: message.stopReason, message });
    stream.end(message);
    return stream;
  };
  const streamFn = direct ? directStream : undefined;

  const tool = {
    name: 'noop',
    label: 'No-op',
    description: 'Returns "ok" at once.',
    parameters: ai.Type.Object({ path: ai.Type.String() }),
    execute: async () => ({ content: [{ type: 'text', text: 'ok' }], details: undefined }),
  };

  const counters = { toolCall: 0, toolResult: 0, events: 0 };
  const config = { model, convertToLlm: pca.convertToLlm, toolExecution: spec.mode };
  let hookWiring = 'none';
  if (spec.handlers > 0) {
    const runner = buildRunner(pca, spec.handlers, counters);
    wireRunner(config, runner);
    hookWiring = `ExtensionRunner: ${spec.handlers} extensions, each with 1 tool_call + 1 tool_result no-op handler (wired into beforeToolCall/afterToolCall as AgentSession does)`;
  }

  const callsInScript = spec.kind === 'empty' ? 0 : spec.n;
  const script = () => {
    if (callsInScript === 0) return [ai.fauxAssistantMessage('done')];
    const calls = [];
    for (let i = 0; i < callsInScript; i++) calls.push(ai.fauxToolCall('noop', { path: 'x' }, { id: `call_${i}` }));
    return [ai.fauxAssistantMessage(calls, { stopReason: 'toolUse' }), ai.fauxAssistantMessage('done')];
  };
  const prompt = () => [{ role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: Date.now() }];
  const onEvent = () => {
    counters.events++;
  };

  let lastMessages;
  const runLoop =
    spec.piEntry === 'agentLoop'
      ? async ({ prompts, controller }) => {
          const stream = core.agentLoop(prompts, { systemPrompt: '', messages: [], tools: [tool] }, config, controller.signal, streamFn);
          for await (const event of stream) onEvent(event);
          lastMessages = await stream.result();
        }
      : async ({ prompts, controller }) => {
          lastMessages = await core.runAgentLoop(prompts, { systemPrompt: '', messages: [], tools: [tool] }, config, onEvent, controller.signal, streamFn);
        };

  const { runUs } = await measureRuns({
    prepare: () => {
      if (direct) directQueue.splice(0, directQueue.length, ...script());
      else faux.setResponses(script());
      counters.toolCall = 0;
      counters.toolResult = 0;
      counters.events = 0;
      return { prompts: prompt(), controller: new AbortController() };
    },
    run: runLoop,
    warmup: spec.warmup,
    minReps: spec.minReps,
    maxReps: spec.maxReps,
    budgetMs: spec.budgetMs,
    gcBetweenReps: spec.gcBetweenReps !== false,
  });
  faux.unregister();

  // Untimed checks on the last run.
  const results = lastMessages.filter((m) => m.role === 'toolResult');
  const expectResults = spec.kind === 'loop' ? spec.n : 0;
  const problems = [];
  if (results.length !== expectResults) problems.push(`expected ${expectResults} tool results, got ${results.length}`);
  if (results.some((m) => m.isError)) problems.push(`${results.filter((m) => m.isError).length} tool results are errors: ${results.find((m) => m.isError)?.content?.[0]?.text}`);
  if (results.some((m, i) => m.toolCallId !== `call_${i}`)) problems.push('tool results are not in call order');
  if (spec.kind === 'loop' && spec.handlers > 0) {
    const want = spec.n * spec.handlers;
    if (counters.toolCall !== want || counters.toolResult !== want) problems.push(`handler invocations ${counters.toolCall}/${counters.toolResult}, expected ${want} each`);
  }

  return {
    side: 'pi',
    kind: spec.kind,
    provider: direct ? 'direct (scripted streamFn: start + done)' : 'faux (pi-ai registerFauxProvider, one delta per block)',
    n: spec.n,
    callsInScript,
    handlers: spec.handlers,
    mode: spec.mode,
    entry: spec.piEntry === 'agentLoop' ? 'agentLoop() + for-await over its EventStream' : 'runAgentLoop() with a no-op emit callback',
    hookWiring,
    warmup: spec.warmup,
    runUs,
    observed: {
      eventsPerRun: counters.events,
      messagesPerRun: lastMessages.length,
      toolResults: results.length,
      handlerInvocationsPerRun: { tool_call: counters.toolCall, tool_result: counters.toolResult },
      lastMessageStopReason: lastMessages.at(-1)?.stopReason,
    },
    problems,
    importMs,
    rssAfterImportMB,
    peakRssMB: peakRssMB(),
    warnings: await warnings(),
  };
});

function buildRunner(pca, count, counters) {
  const extensions = [];
  for (let k = 0; k < count; k++) {
    const id = `<airlock-bench:noop-${k}>`;
    extensions.push({
      path: id,
      resolvedPath: id,
      sourceInfo: pca.createSyntheticSourceInfo(id, { source: 'sdk' }),
      handlers: new Map([
        [
          'tool_call',
          [
            () => {
              counters.toolCall++;
              return undefined;
            },
          ],
        ],
        [
          'tool_result',
          [
            () => {
              counters.toolResult++;
              return undefined;
            },
          ],
        ],
      ]),
      tools: new Map(),
      messageRenderers: new Map(),
      commands: new Map(),
      flags: new Map(),
      shortcuts: new Map(),
    });
  }
  const cwd = process.cwd();
  const auth = pca.AuthStorage.inMemory({});
  return new pca.ExtensionRunner(extensions, pca.createExtensionRuntime(), cwd, pca.SessionManager.inMemory(cwd), pca.ModelRegistry.inMemory(auth));
}

/** The same adapter AgentSession installs (0.73.1), minus its session-event queue wait. */
function wireRunner(config, runner) {
  config.beforeToolCall = async ({ toolCall, args }) => {
    if (!runner.hasHandlers('tool_call')) return undefined;
    return runner.emitToolCall({ type: 'tool_call', toolName: toolCall.name, toolCallId: toolCall.id, input: args });
  };
  config.afterToolCall = async ({ toolCall, args, result, isError }) => {
    if (!runner.hasHandlers('tool_result')) return undefined;
    const changed = await runner.emitToolResult({
      type: 'tool_result',
      toolName: toolCall.name,
      toolCallId: toolCall.id,
      input: args,
      content: result.content,
      details: result.details,
      isError,
    });
    if (!changed) return undefined;
    return { content: changed.content, details: changed.details, isError: changed.isError ?? isError };
  };
}

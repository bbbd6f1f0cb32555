import { resolve } from 'node:path';
import { buildSystemPrompt, ModelSpecError, openTranscript, PROVIDER_FACTORIES, resolveModel, resumeTranscript, runAgentLoop, ScriptError, SessionError, textOf, transcriptListener, userMessage, type AgentEvent, type AgentRunResult, type Message, type ModelProvider, type Transcript } from '@airlock/agent';
import { displayText, type Content } from '@airlock/kernel';
import { formatStatus } from '../format.js';
import { hostRunner } from '../host-runner.js';
import { EXIT, UsageError, type IO } from '../io.js';
import { liveOutput } from '../live-output.js';
import type { GlobalOptions } from '../main.js';
import { openSession } from '../session.js';
import { sessionQuery } from './session-query.js';
import { reportDiagnostics } from './diagnostics.js';
import { withInterrupt } from './interrupt.js';
import { leaveIfStuck } from './stuck.js';

export interface RunArgs {
  print?: string;
  model?: string;
  baseUrl?: string;
  maxTurns?: number;
  /** `--resume [session]`: `true` for the project's newest session. */
  resume?: string | true;
}

/**
 * `airlock run -p PROMPT --model provider:name`: the agent loop over the host's tools, in print
 * mode. The final assistant text goes to stdout; each tool call's outcome, live bash output (on a
 * terminal) and why a run failed go to stderr; `--json` streams every event as a JSON line
 * instead. Exit code: see runExitCode.
 */
export async function runCommand(a: RunArgs, g: GlobalOptions, io: IO): Promise<number> {
  if (a.print === undefined) {
    throw new UsageError('airlock run needs -p "PROMPT" (print mode); the interactive mode is not available yet.', 'Example: airlock run -p "What is in README.md?" --model scripted:demo.jsonl');
  }
  if (a.print.trim() === '') throw new UsageError('The prompt given with -p is empty. Say what the agent should do.');
  const providers = Object.keys(PROVIDER_FACTORIES);
  if (a.model === undefined) {
    throw new UsageError('airlock run needs --model provider:name.', `Providers: ${providers.join(', ')}. Example: --model scripted:demo.jsonl`);
  }
  const { provider, model } = await openModel(a.model, a.baseUrl, io);
  const host = await openSession(g, io);
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    // Every call would be refused (fail closed); a model spending turns against that helps nobody.
    if (host.blocked !== undefined) {
      io.stderr.write('airlock: the agent did not start: every tool call would be refused until the problem above is fixed.\n');
      return EXIT.usage;
    }
    const { transcript, history } = startTranscript(a, host, g, io);
    const runner = hostRunner(host);
    const systemPrompt = buildSystemPrompt({ tools: runner.tools, ...(provider.toolName === undefined ? {} : { toolName: (n) => provider.toolName!(n) }), cwd: host.kernel.cwd });
    const show = g.json ? jsonLines(io) : progress(io);
    const record = transcriptListener(transcript);
    const onEvent = (event: AgentEvent): void => {
      record(event);
      show(event);
    };
    const result = await withInterrupt((signal) =>
      runAgentLoop([userMessage(a.print!)], { provider, model, runner, systemPrompt, signal, onEvent, history, ...(a.maxTurns === undefined ? {} : { maxTurns: a.maxTurns }) }),
    ).finally(() => transcript.close());
    if (!g.json && result.finalMessage !== undefined && result.status !== 'failed') {
      const text = textOf(result.finalMessage);
      if (text !== '') io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
    if (result.reason !== undefined) io.stderr.write(`airlock: ${displayText(result.reason, { multiline: true, maxChars: 2000 })}\n`);
    if (!g.json) io.stderr.write(`airlock: transcript ${transcript.path} (session ${transcript.id}; continue with airlock run --resume ${transcript.id})\n`);
    return runExitCode(result);
  } finally {
    await host.close();
    leaveIfStuck(host, io);
  }
}

/**
 * The run's transcript: a new one in the project's sessions folder, or, with `--resume`, the
 * recorded one reopened, its messages becoming the loop's history. Every message is redacted by
 * the host's redactors before it is written. A transcript that cannot be written stops the run
 * before the model starts (exit 2): a run nobody can look back on is not started silently.
 */
function startTranscript(a: RunArgs, host: Awaited<ReturnType<typeof openSession>>, g: GlobalOptions, io: IO): { transcript: Transcript; history: readonly Message[] } {
  const query = sessionQuery(g, io);
  const options = { cwd: query.cwd, model: a.model!, redact: (text: string) => host.redact(text), where: query.where };
  try {
    if (a.resume === undefined) return { transcript: openTranscript(options), history: [] };
    const { transcript, loaded } = resumeTranscript(a.resume === true ? undefined : a.resume, options);
    for (const warning of loaded.warnings) io.stderr.write(`airlock: ${displayText(warning, { maxChars: 400 })}\n`);
    return { transcript, history: loaded.messages };
  } catch (error) {
    if (error instanceof SessionError) throw new UsageError(error.message, error.hint);
    throw new UsageError((error as Error).message ?? String(error));
  }
}

/**
 * 0 when the model gave its answer; 1 when the run did not end that way: the provider failed,
 * the answer was cut off, the turn limit was reached, the run was interrupted, or the tools ended
 * it (`terminate`) with a result that is not ok — that is what "a tool failed the run" means. A
 * call that was denied, invalid or failed and that the model then saw and answered is part of
 * the conversation, not a failure of the run.
 */
export function runExitCode(result: AgentRunResult): number {
  if (result.status === 'done') return EXIT.ok;
  if (result.status === 'terminated') {
    const last = result.messages.filter((m) => m.role === 'toolResult').slice(-countLastBatch(result));
    return last.every((m) => m.role === 'toolResult' && m.outcome === 'ok') ? EXIT.ok : EXIT.outcome;
  }
  return EXIT.outcome;
}

function countLastBatch(result: AgentRunResult): number {
  let n = 0;
  for (let i = result.messages.length - 1; i >= 0 && result.messages[i]!.role === 'toolResult'; i--) n++;
  return Math.max(n, 1);
}

async function openModel(spec: string, baseUrl: string | undefined, io: IO): Promise<{ provider: ModelProvider; model: string }> {
  try {
    return await resolveModel(spec, { cwd: resolve(io.cwd), env: io.env, ...(baseUrl === undefined ? {} : { baseUrl }) });
  } catch (error) {
    if (error instanceof ModelSpecError || error instanceof ScriptError) throw new UsageError(error.message);
    throw new UsageError(`The model ${spec} cannot be used: ${(error as Error).message ?? String(error)}`);
  }
}

/** `--json`: every event as one JSON line, deltas without the growing message copy they point to. */
export function jsonLines(io: IO): (event: AgentEvent) => void {
  return (event) => {
    const line = event.type === 'message_update' ? { ...event, message: undefined, delta: { ...event.delta, message: undefined } } : event;
    io.stdout.write(`${JSON.stringify(line)}\n`);
  };
}

/** For a person, on stderr: each call's outcome as it ends, and a running command's output on a terminal. */
function progress(io: IO): (event: AgentEvent) => void {
  const live = new Map<string, ReturnType<typeof liveOutput>>();
  const watching = io.stderrIsTTY === true;
  return (event) => {
    if (event.type === 'tool_execution_update' && watching) {
      let out = live.get(event.toolCallId);
      if (out === undefined) live.set(event.toolCallId, (out = liveOutput((text) => void io.stderr.write(text))));
      out.update(contentText(event.partial.content));
    } else if (event.type === 'tool_execution_end') {
      live.get(event.toolCallId)?.end();
      live.delete(event.toolCallId);
      io.stderr.write(formatStatus(event.result));
    }
  };
}

function contentText(content: readonly Content[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

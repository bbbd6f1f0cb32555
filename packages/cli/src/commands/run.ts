import { resolve } from 'node:path';
import { buildSystemPrompt, hostRunner, ModelSpecError, openTranscript, parseModelSpec, PROVIDER_FACTORIES, ProviderSetupError, resolveModel, resumeTranscript, runAgentLoop, ScriptError, SessionError, sessionExtensions, textOf, transcriptListener, userMessage, type AgentEvent, type AgentRunResult, type Message, type ModelProvider, type Transcript } from '@airlock/agent';
import type { Host } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { type AnyAgentTool } from '@airlock/contract';
import { runInteractive } from '../interactive/session.js';
import { createLineEditor, type LineEditor } from '../interactive/line-editor.js';
import { pausingUI } from '../interactive/pausing-ui.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { providerSettings } from '@airlock/host';
import { openSession } from '../session.js';
import { sessionQuery } from './session-query.js';
import { reportDiagnostics } from './diagnostics.js';
import { withInterrupt } from './interrupt.js';
import { jsonLines, progress } from './run-progress.js';
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
 * `airlock run --model provider:name`: the agent loop over the host's tools.
 * - `-p PROMPT` (print mode): the final assistant text goes to stdout; each tool call's outcome,
 *   live bash output (on a terminal) and why a run failed go to stderr; `--json` streams every
 *   event as a JSON line instead. Exit code: see runExitCode.
 * - without `-p`, on a terminal: the interactive mode (interactive/session.ts), turn after turn.
 */
export async function runCommand(a: RunArgs, g: GlobalOptions, io: IO): Promise<number> {
  const interactive = a.print === undefined;
  if (interactive && (!io.isTTY || io.stdin === undefined)) {
    throw new UsageError('airlock run needs -p "PROMPT" when standard input is not a terminal (the interactive mode needs one).', 'Example: airlock run -p "What is in README.md?" --model scripted:demo.jsonl');
  }
  if (interactive && g.json) throw new UsageError('--json streams the events of one print-mode run; give the prompt with -p "PROMPT".');
  if (a.print !== undefined && a.print.trim() === '') throw new UsageError('The prompt given with -p is empty. Say what the agent should do.');
  const providers = Object.keys(PROVIDER_FACTORIES);
  if (a.model === undefined) {
    throw new UsageError('airlock run needs --model provider:name.', `Providers: ${providers.join(', ')}. Example: --model scripted:demo.jsonl`);
  }
  checkModelSpec(a.model);
  // The line editor exists before the host so the host's dialogs pause it (they share the terminal).
  const editor = interactive ? createLineEditor({ input: io.stdin!, output: io.terminal ?? process.stderr }) : undefined;
  const host = await openSession(g, io, editor === undefined ? undefined : pausingUI(editor, { input: io.stdin!, output: io.terminal ?? process.stderr }));
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    // Every call would be refused (fail closed); a model spending turns against that helps nobody.
    if (host.blocked !== undefined) {
      io.stderr.write('airlock: the agent did not start: every tool call would be refused until the problem above is fixed.\n');
      return EXIT.usage;
    }
    const { provider, model } = await openModel(a.model, a.baseUrl, host, io);
    const { transcript, history } = startTranscript(a, host, g, io);
    // Extensions (command hooks' transcript_path) learn where this session is recorded.
    host.services.transcriptPath = transcript.path;
    const runner = hostRunner(host);
    const systemPrompt = (tools: readonly AnyAgentTool[]): string =>
      buildSystemPrompt({ tools, ...(provider.toolName === undefined ? {} : { toolName: (n) => provider.toolName!(n) }), cwd: host.kernel.session.cwd });
    const maxTurns = a.maxTurns === undefined ? {} : { maxTurns: a.maxTurns };
    if (editor !== undefined) {
      return await runInteractive({ editor, agent: { provider, model, runner, systemPrompt, history, ...maxTurns }, transcript, modelSpec: a.model, io }).finally(() => transcript.close());
    }
    const show = g.json ? jsonLines(io) : progress((text) => void io.stderr.write(text), io.stderrIsTTY === true);
    const record = transcriptListener(transcript);
    const onEvent = (event: AgentEvent): void => {
      record(event);
      show(event);
    };
    const result = await withInterrupt((signal) =>
      runAgentLoop([userMessage(a.print!)], { provider, model, runner, systemPrompt, signal, onEvent, history, ...maxTurns }),
    ).finally(() => transcript.close());
    if (!g.json && result.finalMessage !== undefined && result.status !== 'failed') {
      const text = textOf(result.finalMessage);
      if (text !== '') io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
    if (result.reason !== undefined) io.stderr.write(`airlock: ${displayText(result.reason, { maxChars: 2000 })}\n`);
    if (!g.json) io.stderr.write(`airlock: transcript ${transcript.path} (session ${transcript.id}; continue with airlock run --resume ${transcript.id})\n`);
    return runExitCode(result);
  } finally {
    editor?.close();
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
function startTranscript(a: RunArgs, host: Host, g: GlobalOptions, io: IO): { transcript: Transcript; history: readonly Message[] } {
  const query = sessionQuery(g, io);
  const options = { cwd: query.cwd, model: a.model!, redact: (text: string) => host.redact(text), where: query.where, extensions: sessionExtensions(host.extensions.extensions) };
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

/** A bad `--model` is a usage error before anything loads. */
function checkModelSpec(spec: string): void {
  try {
    parseModelSpec(spec);
  } catch (error) {
    if (error instanceof ModelSpecError) throw new UsageError(error.message);
    throw error;
  }
}

/** The provider, with its key and base URL from the flags, the user's settings or the environment (in that order). */
async function openModel(spec: string, baseUrl: string | undefined, host: Host, io: IO): Promise<{ provider: ModelProvider; model: string }> {
  const name = parseModelSpec(spec).provider;
  try {
    return await resolveModel(spec, { cwd: resolve(io.cwd), env: io.env, ...providerSettings(name, host.settings, baseUrl) });
  } catch (error) {
    if (error instanceof ModelSpecError || error instanceof ScriptError) throw new UsageError(error.message);
    const hint = error instanceof ProviderSetupError ? `A key may also be set as providers.${name}.apiKey (or apiKeyEnv, the variable to read it from) in your user settings, ${host.settings.userFile}.` : undefined;
    throw new UsageError(`The model ${displayText(spec, { maxChars: 300 })} cannot be used: ${displayText((error as Error).message ?? String(error), { maxChars: 1000 })}`, hint);
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSystemPrompt, hostRunner, loadScript, openTranscript, runAgentLoop, sessionExtensions, ScriptError, transcriptListener, userMessage, type AgentEvent, type ScriptEntry, type StateLocation, type Transcript } from '@airlock/agent';
import type { Host } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { type AnyAgentTool } from '@airlock/contract';
import { projectStateDir, shellQuote } from '@airlock/toolkit/util';
import { tourDisplay } from '../demo/tour-display.js';
import { findTour, makeTourProject } from '../demo/tour-project.js';
import { tourProvider } from '../demo/tour-provider.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { reportDiagnostics } from './diagnostics.js';
import { withInterrupt } from './interrupt.js';
import { jsonLines } from './run-progress.js';
import { runExitCode } from './run.js';
import { sessionQuery } from './session-query.js';
import { leaveIfStuck } from './stuck.js';

export interface DemoArgs {
  /** `--demo-dir DIR`: where to make the sandbox project (new or empty); default a new temp folder. */
  demoDir?: string;
  maxTurns?: number;
  /** Options that choose another model or conversation, refused with --demo. */
  print?: string;
  model?: string;
  baseUrl?: string;
  resume?: string | true;
}

/** The model name the tour's transcript records. */
const TOUR_MODEL = 'scripted:examples/tour/tour.jsonl';

/**
 * `airlock run --demo`: the tour. A scripted model (examples/tour/tour.jsonl) works in a copy of
 * examples/tour/project made in a temp folder, through the default extensions: every built-in
 * tool, a parallel batch, a cut output read back from its spill file, an edit, a denied read of
 * .env, an ask (a person answers on a terminal; with nobody to ask it is denied) and a redacted
 * token. No API key, no network. It ends by saying where the project, the transcript and the
 * audit log are, and how to verify the log. Exit code as for `run -p`.
 */
export async function runDemo(a: DemoArgs, g: GlobalOptions, io: IO): Promise<number> {
  refuseClashingOptions(a, g);
  const tour = findTour();
  const script = await loadTourScript(tour.script);
  const prompt = readFileSync(tour.prompt, 'utf8').trim();
  const project = makeTourProject(tour, a.demoDir, io.cwd);
  const inProject: GlobalOptions = { ...g, cwd: project };
  const host = await openSession(inProject, io);
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    if (host.blocked !== undefined) {
      io.stderr.write(`airlock: the tour did not start: every tool call would be refused until the problem above is fixed. The project is in ${project}.\n`);
      return EXIT.usage;
    }
    const where = sessionQuery(inProject, io).where;
    const transcript = openTourTranscript(project, host, where);
    const runner = hostRunner(host);
    const provider = tourProvider(script);
    const systemPrompt = (tools: readonly AnyAgentTool[]): string => buildSystemPrompt({ tools, cwd: host.kernel.session.cwd });
    const show = g.json ? jsonLines(io) : tourDisplay(io);
    const record = transcriptListener(transcript);
    const onEvent = (event: AgentEvent): void => {
      record(event);
      show(event);
    };
    if (!g.json) io.stdout.write(opening(project, io.isTTY));
    const result = await withInterrupt((signal) =>
      runAgentLoop([userMessage(prompt)], { provider, model: TOUR_MODEL, runner, systemPrompt, signal, onEvent, ...(a.maxTurns === undefined ? {} : { maxTurns: a.maxTurns }) }),
    ).finally(() => transcript.close());
    if (result.reason !== undefined) io.stderr.write(`airlock: ${displayText(result.reason, { maxChars: 2000 })}\n`);
    // With --json stdout holds events only; the closing notes go to stderr then.
    (g.json ? io.stderr : io.stdout).write(closing(project, transcript, auditLog(host, project, where)));
    return runExitCode(result);
  } finally {
    await host.close();
    leaveIfStuck(host, io);
  }
}

/** --demo picks its model, prompt and folder itself: other choices are usage errors, not silently ignored. */
function refuseClashingOptions(a: DemoArgs, g: GlobalOptions): void {
  const clash = [
    a.print === undefined ? undefined : '-p',
    a.model === undefined ? undefined : '--model',
    a.baseUrl === undefined ? undefined : '--base-url',
    a.resume === undefined ? undefined : '--resume',
    g.cwd === undefined ? undefined : '--cwd',
  ].filter((x) => x !== undefined);
  if (clash.length > 0) {
    throw new UsageError(
      `--demo plays the tour's own script and prompt in a project of its own; it does not take ${clash.join(', ')}.`,
      'Run `airlock run --demo` alone (--demo-dir DIR chooses the project folder), or `airlock run -p PROMPT --model provider:name` for your own run.',
    );
  }
}

async function loadTourScript(file: string): Promise<ScriptEntry[]> {
  try {
    return await loadScript(file);
  } catch (error) {
    if (error instanceof ScriptError) throw new UsageError(error.message, 'The tour script is part of the checkout: restore it with git checkout examples/tour.');
    throw error;
  }
}

function openTourTranscript(project: string, host: Host, where: StateLocation): Transcript {
  try {
    return openTranscript({ cwd: project, model: TOUR_MODEL, redact: (text) => host.redact(text), where, extensions: sessionExtensions(host.extensions.extensions) });
  } catch (error) {
    throw new UsageError(`The tour's transcript cannot be written: ${(error as Error).message ?? String(error)}`);
  }
}

/**
 * Where the audit log of the tour's project is, when it is where audit-log puts it by default
 * and was written; otherwise why not (settings move it with the extension's `path` option, or
 * leave audit-log out).
 */
export function auditLog(host: Pick<Host, 'settings' | 'extensions'>, project: string, where: StateLocation): { path: string } | { note: string } {
  const loaded = host.extensions.extensions.some((r) => r.spec === '@airlock/audit-log' && r.status === 'loaded');
  if (!loaded) return { note: 'no audit log: the settings leave @airlock/audit-log out, or it did not load (see above)' };
  const moved = host.settings.extensions.some((e) => e.spec === '@airlock/audit-log' && e.enabled && typeof e.options.path === 'string');
  const path = join(projectStateDir('audit', project, where), 'audit.jsonl');
  if (moved || !existsSync(path)) return { note: `where your settings put it (the audit-log "path" option); check it with: airlock --cwd ${shellQuote(project)} audit verify` };
  return { path };
}

function opening(project: string, interactive: boolean): string {
  return [
    '── The Airlock tour ──',
    'A scripted model (examples/tour/tour.jsonl: no API key, no network) works in a sandbox project:',
    `  ${project}`,
    'Every tool call is real and goes through Airlock: policy, approval, redaction and the audit log.',
    interactive ? 'When Airlock asks you about a call, your answer decides it.' : 'Nobody can be asked here (no terminal), so a call that needs a yes is denied.',
    '',
  ].join('\n');
}

function closing(project: string, transcript: Transcript, audit: { path: string } | { note: string }): string {
  const lines = [
    '',
    '── Where to look ──',
    `The project:     ${project} (left in place; delete it when done)`,
    `The transcript:  ${transcript.path}`,
  ];
  if ('path' in audit) {
    lines.push(`The audit log:   ${audit.path}`, `Verify its hash chain:  airlock audit verify ${shellQuote(audit.path)}`);
  } else lines.push(`The audit log:   ${audit.note}`);
  lines.push(`Replay the session against today's policy:  airlock --cwd ${shellQuote(project)} replay ${transcript.id}`, '');
  return lines.join('\n');
}

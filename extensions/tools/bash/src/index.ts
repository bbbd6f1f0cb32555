import Type, { type Static } from 'typebox';
import type { AgentTool, Extension, SandboxedCommand, ToolContext, TruncationResult } from '@airlock/contract';
import { appendNotice, closestNames, tailNotice } from '@airlock/toolkit/util';
import { buildEnv } from '@airlock/secrets';
import { BackgroundJobs, type JobInfo } from './jobs.js';
import { createJobsTool } from './jobs-tool.js';
import { DEFAULT_RESOURCE_LIMITS, limitedCommand, limitNotice, limitsHit, ResourceLimits, LIMIT_SETUP_FAILED } from './limits.js';
import { runCommand, type Ending, type RunResult } from './run.js';
import { sanitize } from './sanitize.js';
import { analyzeBash, commandTouches } from './touches.js';
import { createPreludeResolver, createShellResolver } from './shell.js';

export { buildEnv, looksSecret, looksSecretValue, nameMatcher } from '@airlock/secrets';
export { BackgroundJobs, type JobInfo } from './jobs.js';
export { createJobsTool } from './jobs-tool.js';
export { DEFAULT_RESOURCE_LIMITS, limitedCommand, limitedShellArgs, ResourceLimits } from './limits.js';
export { sanitize } from './sanitize.js';
export { commandTouches, loadCommandAnalysis } from './touches.js';

/**
 * Settings for the bash tool. The base environment is the host's `ctx.env` when it is non-empty,
 * else `process.env`; secret-looking names are then withheld unless `env.allow` names them, and
 * `env.deny` removes names whatever else matches.
 */
export const BashOptions = Type.Object({
  defaultTimeoutSeconds: Type.Integer({
    minimum: 0,
    default: 120,
    description: 'Time limit when a call gives none. 0 = no limit, only if allowNoTimeout is true.',
    // Safety limits: the host never takes them from an untrusted project, which could lift them.
    'x-airlock-value': 'limit',
  }),
  allowNoTimeout: Type.Boolean({ default: false, description: 'Whether timeout 0 (no limit) is accepted.', 'x-airlock-value': 'limit' }),
  // A program: the host never takes it from an untrusted project (the mark is read by the host's options check).
  shellPath: Type.Optional(Type.String({ minLength: 1, description: 'Shell to run commands with (default: bash on PATH, else sh).', 'x-airlock-value': 'program' })),
  // 1500, not the kernel's graceMs of 2000: the kernel stops waiting for a cancelled call after
  // graceMs, so with equal values its "did not stop" raced our SIGKILL and usually won, throwing
  // away the output tail. 500 ms is left for the processes to die, the pipes to close (at most
  // 250 ms after the SIGKILL) and the spill file to be closed.
  // Code that runs before every command (Pi's shellCommandPrefix): only a trusted layer may set it.
  commandPrefix: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Shell code run before every command, in the same shell, e.g. "source ~/.profile" or "set -o pipefail". ' +
        'The command runs as "<prefix>\\n<command>": the policy judges that whole text, and it runs inside the sandbox like the command.',
      'x-airlock-value': 'code',
    }),
  ),
  killGraceMs: Type.Integer({
    minimum: 0,
    default: 1500,
    description: "Time between SIGTERM and SIGKILL on timeout or abort. Keep it ~500 ms below the kernel's execution.graceMs.",
  }),
  limits: ResourceLimits,
  env: Type.Object(
    {
      allow: Type.Array(Type.String({ minLength: 1 }), {
        default: [],
        description: 'Names or globs (MY_*) passed on even when they look secret.',
      }),
      deny: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'Names or globs never passed on. Wins over allow.' }),
    },
    { default: { allow: [], deny: [] } },
  ),
});
export type BashOptions = Static<typeof BashOptions>;

const Params = Type.Object({
  command: Type.String({ minLength: 1, description: 'Bash command to run.' }),
  timeout: Type.Optional(Type.Integer({ minimum: 0, description: 'Time limit in seconds (default from settings).' })),
  background: Type.Optional(
    Type.Boolean({
      description:
        'Run it as a background job (a server, a watcher) and return at once with its job id and the file its output goes to. ' +
        'Jobs are listed and stopped with bash_jobs and end with the session. Without this, anything the command leaves running is ended when it finishes.',
    }),
  ),
});
export type BashParams = Static<typeof Params>;

export interface BashDetails {
  /** The shell's exit code; null when the call was stopped or the shell died by a signal. */
  exitCode: number | null;
  truncation?: TruncationResult;
  fullOutputPath?: string;
  /** The spill file holds only the beginning of the output (the session's spill budget ran out). */
  fullOutputCapped?: boolean;
  /** Processes the command left running, ended when it finished. */
  leftoversEnded?: number;
  /** Resource limits that probably ended (part of) the command. */
  limitsHit?: string[];
  /** The job started with `background: true`. */
  job?: JobInfo;
  /** Set when the command ran inside the OS sandbox. */
  sandboxed?: true;
}

const DESCRIPTION = [
  'Run a bash command in the working folder. stdout and stderr are merged; the model sees the last',
  '2000 lines or 50KB (whichever comes first), with the full output saved to a file when cut.',
  'stdin is closed, so interactive commands get end-of-file. A non-zero exit code is an error.',
  'Commands stop after `timeout` seconds (default from settings). When a command ends, every process it',
  'started ends too (`cmd &` included); to keep a server or watcher running, pass background: true and manage it',
  'with bash_jobs. Resource limits apply (file size, processes, CPU time); the result says when one stopped a command.',
].join(' ');

/**
 * Fill in defaults for a partial options object (settings normally do this via the schema). A
 * key the schema does not name is an error here too, for callers that skip the host's check.
 */
function withDefaults(options: Partial<BashOptions>): BashOptions {
  const known = Object.keys(BashOptions.properties);
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = closestNames(key, known);
    throw new Error(`bash: "${key}" is not an option${near.length > 0 ? `. Did you mean "${near[0]}"?` : `; the options are ${known.join(', ')}`}`);
  }
  return {
    ...(options.commandPrefix === undefined ? {} : { commandPrefix: options.commandPrefix }),
    defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 120,
    allowNoTimeout: options.allowNoTimeout ?? false,
    ...(options.shellPath === undefined ? {} : { shellPath: options.shellPath }),
    killGraceMs: options.killGraceMs ?? 1500,
    limits: { ...DEFAULT_RESOURCE_LIMITS, ...options.limits },
    env: { allow: options.env?.allow ?? [], deny: options.env?.deny ?? [] },
  };
}

/** Build the bash tool with the given settings (defaults for anything left out). */
export function createBashTool(partial: Partial<BashOptions> = {}, jobs: BackgroundJobs = new BackgroundJobs()): AgentTool<typeof Params, BashDetails> {
  const options = withDefaults(partial);
  if (options.defaultTimeoutSeconds === 0 && !options.allowNoTimeout) {
    throw new Error('bash: defaultTimeoutSeconds is 0 (no limit) but allowNoTimeout is false; set one of them.');
  }
  const resolveShell = createShellResolver(options.shellPath);
  const preludeFor = createPreludeResolver();
  // The text the shell runs: what resources() hands the policy is exactly this, never the bare command.
  const asRun = (command: string): string => (options.commandPrefix === undefined ? command : `${options.commandPrefix}\n${command}`);

  return {
    name: 'bash',
    label: 'Bash',
    description: DESCRIPTION,
    parameters: Params,
    replay: 'never',
    executionMode: 'parallel',
    resources(params, ctx) {
      const command = asRun(params.command);
      // A background job keeps running after the call, and a prefix may touch anything: neither says for sure what it touches.
      const touches = params.background === true || options.commandPrefix !== undefined ? undefined : commandTouches(params.command);
      return [{ kind: 'exec', command, cwd: ctx.cwd, ...(touches === undefined ? {} : { touches }) }];
    },
    // Every tool_call handler gets this through event.analyzeCommand, once per call: policies
    // judge bash by the analysis, never by parsing it themselves.
    analyzeCommand: analyzeBash,
    async execute(_id, params, signal, onUpdate, ctx) {
      const timeoutSeconds = params.timeout ?? options.defaultTimeoutSeconds;
      if (timeoutSeconds === 0 && !options.allowNoTimeout) {
        throw new Error(
          'timeout 0 (no limit) is not allowed by the settings (allowNoTimeout is false). ' +
            `Give a timeout in seconds, or leave it out for the default of ${options.defaultTimeoutSeconds}.`,
        );
      }
      const base = baseEnv(ctx);
      const { env, withheld } = buildEnv(base, options.env);
      if (withheld.length > 0) ctx.log.debug('bash: environment variables withheld', { names: withheld });

      const shell = resolveShell(env.PATH);
      const command = asRun(params.command);
      // `launch` sets the limits, then execs the shell that runs the command.
      const { file: launch, args } = limitedCommand(shell, command, options.limits, preludeFor(shell));
      const sandboxed = await sandboxFor(ctx, env, signal);
      if (params.background === true) {
        // A background job runs under the same sandbox as any command.
        const job = await jobs.start({
          shell: sandboxed?.file ?? launch,
          args: sandboxed === undefined ? args : [...sandboxed.args, launch, ...args],
          command,
          cwd: ctx.cwd,
          env: sandboxed?.env ?? env,
          ctx,
          ...(sandboxed === undefined
            ? {}
            : {
                onEnd: () => {
                  // Nobody reads a finished job's result: the note goes to the log.
                  void sandboxed.release().then((note) => {
                    if (note !== undefined) ctx.log.warn(`bash background job: ${note}`);
                  });
                },
              }),
        });
        const text =
          `Started background job ${job.id} (pid ${job.pid}). Its output goes to ${job.outputPath} (read it with the read tool). ` +
          'List jobs or stop this one with bash_jobs; it ends with the session.';
        return { content: [{ type: 'text', text }], details: { exitCode: null, job, ...(sandboxed === undefined ? {} : { sandboxed: true }) } };
      }

      let run: RunResult;
      let released: string | undefined;
      try {
        run = await runCommand({
          command,
          shell: launch,
          args,
          ...(sandboxed === undefined ? {} : { wrapper: { file: sandboxed.file, args: sandboxed.args }, contained: sandboxed.processesEndWithIt === true }),
          cwd: ctx.cwd,
          env: sandboxed?.env ?? env,
          timeoutSeconds,
          killGraceMs: options.killGraceMs,
          signal,
          ctx,
          ...(onUpdate === undefined
            ? {}
            : {
                onTail: (tail, fullOutputPath) =>
                  onUpdate({
                    content: [{ type: 'text', text: sanitize(tail.content) }],
                    details: { exitCode: null, truncation: tail, ...(sandboxed === undefined ? {} : { sandboxed: true }), ...(fullOutputPath === undefined ? {} : { fullOutputPath }) },
                  }),
              }),
        });
      } finally {
        released = await sandboxed?.release();
      }
      return finalResult(run, options.limits, sandboxed, released);
    },
  };
}

/**
 * The sandboxed command line when the host's sandbox is active; undefined when the command runs
 * as is (no sandbox offered, mode off, or auto without bubblewrap: the start-up warning said so).
 * Throws when the mode is `required` and the sandbox cannot start.
 */
async function sandboxFor(ctx: ToolContext, env: Record<string, string>, signal: AbortSignal | undefined): Promise<SandboxedCommand | undefined> {
  const sandbox = ctx.sandbox;
  if (sandbox === undefined) return undefined;
  const { status } = sandbox;
  if (status.active) return sandbox.wrap([], { cwd: ctx.cwd, env, ...(signal === undefined ? {} : { signal }) });
  if (status.mode === 'required') {
    throw new Error(`Blocked: sandbox.mode is "required" and the OS sandbox cannot start. ${status.problem ?? ''} ${status.fix ?? ''}`.trim());
  }
  return undefined;
}

function baseEnv(ctx: ToolContext): Readonly<Record<string, string | undefined>> {
  for (const _ in ctx.env) return ctx.env;
  return process.env;
}

function finalResult(run: RunResult, limits: ResourceLimits, sandboxed: SandboxedCommand | undefined, sandboxNote: string | undefined): { content: [{ type: 'text'; text: string }]; details: BashDetails } {
  const shown = sanitize(run.tail.content);
  const notice = tailNotice(run.tail, { ...(run.fullOutputPath === undefined ? {} : { fullOutputPath: run.fullOutputPath }), lineBytes: run.lastLineBytes });
  const failed = !(run.ending.kind === 'exit' && run.ending.code === 0);
  // Only a failed command gets the hint: a test suite printing "Permission denied" and passing needs none.
  const hint = failed ? sandboxed?.hint(shown) : undefined;
  let output = appendNotice(hint === undefined ? shown : `${shown}\n${hint}`, notice);
  const hits = limitsHit(run.ending.kind === 'exit' ? { code: run.ending.code } : run.ending.kind === 'signal' ? { signal: run.ending.signal } : {}, run.tail.content);
  output = appendNotice(output, limitNotice(hits, limits));
  if (run.leftovers > 0) {
    output = appendNotice(
      output,
      `[The command left ${run.leftovers === 1 ? 'a process' : `${run.leftovers} processes`} running; ended when it finished. ` +
        'To keep a server or watcher running, call bash with background: true.]',
    );
  }
  if (run.fullOutputCapped) {
    output = appendNotice(output, "[The full-output file holds only the beginning of the output: the session's spill budget ran out.]");
  }
  if (run.pipesHeldOpen) output = appendNotice(output, INCOMPLETE_NOTICE);
  if (sandboxNote !== undefined) output = appendNotice(output, sandboxNote);
  const failure = run.ending.kind === 'exit' && run.ending.code === LIMIT_SETUP_FAILED && /airlock: could not set the resource limit/.test(run.tail.content)
    ? 'The resource limits could not be set, so the command did not run.'
    : (failureText(run.ending) ?? (run.pipesHeldOpen ? INCOMPLETE_FAILURE : undefined));
  if (failure !== undefined) throw new Error(output.length === 0 ? failure : `${output}\n\n${failure}`);
  const details: BashDetails = {
    exitCode: run.ending.kind === 'exit' ? run.ending.code : null,
    ...(sandboxed === undefined ? {} : { sandboxed: true as const }),
    ...(run.tail.truncated ? { truncation: run.tail } : {}),
    ...(run.fullOutputPath === undefined ? {} : { fullOutputPath: run.fullOutputPath }),
    ...(run.fullOutputCapped ? { fullOutputCapped: true } : {}),
    ...(run.leftovers > 0 ? { leftoversEnded: run.leftovers } : {}),
    ...(hits.length > 0 ? { limitsHit: hits } : {}),
  };
  return { content: [{ type: 'text', text: output.length === 0 ? '(no output)' : output }], details };
}

/**
 * Said when the output may be incomplete. Never an `ok`: a result missing output it claims to
 * hold is the worst wrong answer, since the model acts on it.
 */
const INCOMPLETE_NOTICE =
  '[The output may be incomplete: when the call stopped reading, it was still held open by a process the command started that did not end ' +
  'when told to (SIGTERM, then SIGKILL) or that was out of reach; anything written after that is missing. ' +
  'To keep a process running, call bash with background: true.]';
const INCOMPLETE_FAILURE = 'The command exited with code 0, but its output could not be collected whole.';

function failureText(ending: Ending): string | undefined {
  switch (ending.kind) {
    case 'exit':
      return ending.code === 0 ? undefined : `Command exited with code ${ending.code}`;
    case 'signal':
      return `Command was killed by ${ending.signal}`;
    case 'timeout':
      return `Command timed out after ${ending.seconds} seconds`;
    case 'aborted':
      return 'Command aborted';
  }
}

/** Each host's jobs, keyed by the api its setup got (one module may serve several hosts). */
const jobsOf = new WeakMap<object, BackgroundJobs>();

const extension = {
  name: 'tool-bash',
  options: BashOptions,
  setup(api, options) {
    const jobs = new BackgroundJobs();
    jobsOf.set(api, jobs);
    api.registerTool(createBashTool(options, jobs));
    api.registerTool(createJobsTool(jobs));
  },
  // Background jobs end with the session; a process exit without close() is covered by jobs itself.
  dispose: (api) => jobsOf.get(api)?.close(),
} satisfies Extension<typeof BashOptions>;

export default extension;

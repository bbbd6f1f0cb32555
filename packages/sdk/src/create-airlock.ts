import { resolve } from 'node:path';
import { Agent, buildSystemPrompt, hostRunner, transcriptListener, type AgentOptions, type ModelProvider, type ToolRunner, type Transcript } from '@airlock/agent';
import type { Host, HostBlocked, Diagnostic, HostFlags, OpenHostOptions, SettingsLayer } from '@airlock/host';
import { openHost } from './open-host.js';
import type { AnyAgentTool, PreflightReport, ToolCall, ToolResultMessage, ToolUI } from '@airlock/contract';
import type { BatchResult, KernelBatchOptions, ToolSelection } from '@airlock/kernel';
import { splitExtensions, type ExtensionInput } from './extension-inputs.js';
import { agentModel, type ModelChoice } from './agent-model.js';
import { agentTranscript, type TranscriptOption } from './agent-transcript.js';
import { refuseUnknownOptions } from '@airlock/toolkit/util';

export interface CreateAirlockOptions {
  /** The project folder: settings are discovered from here, relative paths resolve here. */
  cwd: string;
  /** Settings in code: one layer over the user's and the project's files (validated like a file). */
  settings?: SettingsLayer;
  /** Extensions to load besides the default set: package names, paths, or extension objects (see ExtensionInput). */
  extensions?: readonly ExtensionInput[];
  /** Trust (or not) the project folder for this run, like `--trust` / `--no-trust`. */
  trust?: boolean;
  /** A person can answer dialogs (approval). Default false: an `ask` is a denial naming the rule to add. */
  interactive?: boolean;
  /**
   * Who answers asks (the approval prompt): your own, from `createAskUI({ interactive: true, show })`
   * where `show` answers an ask by a choice's id; default: terminal prompts when interactive.
   */
  ui?: ToolUI;
  /** One line per message for people. */
  log?: (line: string) => void;
  /** What the CLI's flags set (tools allowlist, exclusions, execution mode), on top of everything. */
  flags?: HostFlags;
  /** An explicit settings file instead of discovery. */
  settingsFile?: string;
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  setupTimeoutMs?: number;
  /**
   * Record every agent's session as `airlock run` does: `true` writes to the project's sessions
   * folder (what `airlock sessions` lists and `airlock replay` reads), `{ dir }` to a folder of
   * your own. Default: no transcript. An agent's own `transcript` option wins.
   */
  transcript?: TranscriptOption;
}

const CREATE_OPTIONS: readonly (keyof CreateAirlockOptions)[] = ['cwd', 'settings', 'extensions', 'trust', 'interactive', 'ui', 'log', 'flags', 'settingsFile', 'env', 'homeDir', 'setupTimeoutMs', 'transcript'];

/**
 * What `airlock.agent()` takes: the loop's options without the runner, which is this Airlock's,
 * and the model either as `'provider:name'` (with `baseUrl`, `apiKey`) or as your own provider.
 */
export type AirlockAgentOptions = Omit<AgentOptions, 'runner' | 'systemPrompt' | 'provider' | 'model'> &
  ModelChoice & {
    /** Default: `buildSystemPrompt` over exactly the enabled tools, as the provider spells them. */
    systemPrompt?: string;
    /** Record this agent's session (see CreateAirlockOptions.transcript); default: the Airlock's. */
    transcript?: TranscriptOption;
  };

const AGENT_OPTIONS: readonly (keyof AirlockAgentOptions)[] = ['model', 'provider', 'baseUrl', 'apiKey', 'systemPrompt', 'history', 'maxTurns', 'maxTokens', 'temperature', 'onListenerError', 'transcript'];

/** An agent on an Airlock's tools; `transcript` is where its session is recorded, when it is. */
export class AirlockAgent extends Agent {
  constructor(
    options: AgentOptions,
    /** The recorded session (`airlock sessions`, `airlock replay <id>`), or undefined without `transcript`. */
    readonly transcript: Pick<Transcript, 'id' | 'path'> | undefined,
  ) {
    super(options);
  }
}

/**
 * An open Airlock: a host with its settings and extensions, the enabled tools, and agents that
 * run on them. Every call (`execute`, `batch`, an agent's, an adapter's) goes through the host's
 * kernel: validation, policy, approval, redaction, audit, and fail-closed when a policy extension
 * is missing.
 */
export interface Airlock extends AsyncDisposable {
  readonly host: Host;
  /** The enabled tools: what a model is offered (settings, flags and bare deny rules applied). */
  readonly tools: readonly AnyAgentTool[];
  readonly selection: ToolSelection;
  /** Set when a policy extension failed to load: every call is refused. */
  readonly blocked: HostBlocked | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** The agent loop's runner over this host (for `runAgentLoop` or your own loop). */
  readonly runner: ToolRunner;
  /** One call; never throws for an outcome (`denied`, `invalid`, `error` … are results). */
  execute(call: ToolCall, options?: { signal?: AbortSignal; onEvent?: KernelBatchOptions['onEvent']; timeoutMs?: number }): Promise<ToolResultMessage>;
  /** The calls of one assistant message, results in source order. */
  batch(calls: readonly ToolCall[], options?: KernelBatchOptions): Promise<BatchResult>;
  /** The kernel's dry run: what would happen to this call (lookup, validation, policy), nothing executed. */
  preflight(call: ToolCall, options?: { signal?: AbortSignal }): Promise<PreflightReport>;
  /** The system prompt for these tools, with names spelled as `provider` spells them. */
  systemPrompt(provider?: Pick<ModelProvider, 'toolName'>): string;
  /**
   * An agent on this host's tools; `close()` aborts its run if one is going.
   *
   * @example
   * const agent = airlock.agent({ model: 'openai:qwen3', baseUrl: 'http://127.0.0.1:11434/v1' });
   * await agent.prompt('What is in README.md?');
   * console.log(agent.transcript?.id); // with createAirlock({ transcript: true }): `airlock replay <id>`
   */
  agent(options: AirlockAgentOptions): AirlockAgent;
  /** Ends the session: aborts running agents, background jobs, each extension's dispose(). */
  close(): Promise<void>;
}

/**
 * Open Airlock for a folder from your own program, with settings and extensions in code.
 *
 * @example
 * import { createAirlock, defineExtension, scriptedProvider } from '@airlock/sdk';
 * const noEnv = defineExtension({ name: 'no-env', setup(api) {
 *   api.on('tool_call', (e) => (JSON.stringify(e.args).includes('.env') ? { effect: 'deny', reason: 'no .env' } : undefined), { name: 'env', phase: 'authorize' });
 * } });
 * await using airlock = await createAirlock({
 *   cwd: process.cwd(),
 *   settings: { tools: { allow: ['read', 'ls'] } },
 *   extensions: [{ extension: noEnv, provides: { hooks: ['tool_call:authorize'] } }],
 * });
 * const result = await airlock.execute({ id: '1', name: 'read', arguments: { path: '.env' } }); // outcome 'denied'
 * const agent = airlock.agent({ provider: scriptedProvider(['Hello.']), model: 'demo' });
 * await agent.prompt('Say hello');
 */
export async function createAirlock(options: CreateAirlockOptions): Promise<Airlock> {
  if (typeof options?.cwd !== 'string' || options.cwd === '') throw new TypeError('createAirlock needs { cwd }: the project folder the tools work in.');
  refuseUnknownOptions('createAirlock()', options, CREATE_OPTIONS);
  const { names, modules } = splitExtensions(options.extensions ?? []);
  const settings = withNames(options.settings, names);
  const hostOptions: OpenHostOptions = {
    cwd: options.cwd,
    interactive: options.interactive ?? false,
    ...(settings === undefined ? {} : { settings }),
    ...(modules.length === 0 ? {} : { modules }),
    ...(options.trust === undefined ? {} : { trust: options.trust }),
    ...(options.ui === undefined ? {} : { ui: options.ui }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.flags === undefined ? {} : { flags: options.flags }),
    ...(options.settingsFile === undefined ? {} : { settingsFile: options.settingsFile }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
    ...(options.setupTimeoutMs === undefined ? {} : { setupTimeoutMs: options.setupTimeoutMs }),
  };
  const host = await openHost(hostOptions);
  return wrapHost(host, options);
}

/** Package names given in `extensions` join the code layer's own `extensions` list, after it. */
function withNames(settings: SettingsLayer | undefined, names: readonly string[]): SettingsLayer | undefined {
  if (names.length === 0) return settings;
  return { ...settings, extensions: [...(settings?.extensions ?? []), ...names] } as SettingsLayer;
}

function wrapHost(host: Host, created: CreateAirlockOptions): Airlock {
  const runner = hostRunner(host);
  const agents = new Set<Agent>();
  const transcripts = new Set<Transcript>();
  const env = created.env ?? process.env;
  let closed: Promise<void> | undefined;
  const promptFor = (tools: readonly AnyAgentTool[], provider?: Pick<ModelProvider, 'toolName'>): string =>
    buildSystemPrompt({ tools, ...(provider?.toolName === undefined ? {} : { toolName: (n) => provider.toolName!(n) }), cwd: host.kernel.session.cwd });
  const systemPrompt = (provider?: Pick<ModelProvider, 'toolName'>): string => promptFor(runner.tools, provider);
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      for (const agent of agents) agent.abort(new Error('Airlock was closed'));
      for (const transcript of transcripts) transcript.close();
      await host.close();
    })());
  return {
    host,
    // Getters: the host's enabled set follows extensions' tool sets after it opened.
    get tools() {
      return runner.tools;
    },
    get selection() {
      return host.selection;
    },
    blocked: host.blocked,
    diagnostics: host.diagnostics,
    runner,
    execute: (call, o) => host.execute(call, o),
    batch: (calls, o) => host.batch(calls, o),
    preflight: (call, o = {}) => host.kernel.preflight(call, { ...o, tools: host.selection }),
    systemPrompt,
    agent: (o) => {
      if (closed !== undefined) throw new Error('This Airlock is closed: open a new one with createAirlock().');
      if (typeof o !== 'object' || o === null) throw new TypeError("agent() needs options: { model: 'openai:gpt-5-mini' }, or { provider, model }.");
      refuseUnknownOptions('agent()', o, AGENT_OPTIONS);
      const { provider, model, spec } = agentModel(o, host, { cwd: created.cwd, env });
      const { baseUrl: _baseUrl, apiKey: _apiKey, transcript: own, ...loop } = o;
      const history = loop.history ?? [];
      const transcript = agentTranscript(own ?? created.transcript, host, { cwd: resolve(created.cwd), spec, env, history, ...(created.homeDir === undefined ? {} : { homeDir: created.homeDir }) });
      const agent = new AirlockAgent({ ...loop, provider, model, runner, systemPrompt: o.systemPrompt ?? ((tools) => promptFor(tools, provider)) }, transcript === undefined ? undefined : { id: transcript.id, path: transcript.path });
      if (transcript !== undefined) {
        transcripts.add(transcript);
        agent.subscribe(transcriptListener(transcript));
      }
      agents.add(agent);
      return agent;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

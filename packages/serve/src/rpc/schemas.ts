/**
 * Every method of `airlock serve --stdio`, its params and its result, as TypeBox schemas: the
 * runtime check of what a client sends, the static types of the handlers, and (rendered by
 * doc-schemas.ts) the JSON Schemas in docs/rpc.md. Change a schema here and regenerate the page.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { AgentToolResultSchema, AskAnswer, AskRequest, OUTCOMES } from '@airlock/contract';
import { PROVIDER_IDS } from '@airlock/toolkit';

const closed = { additionalProperties: false } as const;
/** One of these strings (a union of constants in the JSON Schema, the literal union as the static type). */
const oneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v)), description === undefined ? {} : { description }));

const RequestId = Type.Union([Type.String(), Type.Number()], { description: 'a JSON-RPC request id' });
const TimeoutMs = Type.Integer({ minimum: 1, description: "time limit for each call's execution, in ms (outcome `timeout`); default: the settings' execution.timeoutMs" });
const ToolName = Type.String({ minLength: 1, description: 'the tool name, as a model would send it' });
const Arguments = Type.Unknown({ description: 'the arguments, as a model would send them (the kernel validates them against the tool\'s schema); default {}' });
const ToolCallId = Type.String({ minLength: 1, description: 'the tool call id (default: the request id as a string; in a batch `<request id>-<n>`)' });

export const EVENT_TYPES = ['tool_execution_start', 'tool_execution_update', 'tool_execution_end', 'tool_decision', 'hook_failure'] as const;

// ---- initialize ----------------------------------------------------------------------------------

export const InitializeParams = Type.Object(
  {
    dialogs: Type.Optional(Type.Boolean({ description: 'the client answers ui/ask requests (approval prompts); default false: nobody is asked and an "ask" is a denial that names the rule to add' })),
    client: Type.Optional(Type.Object({ name: Type.String(), version: Type.Optional(Type.String()) }, { description: 'who is connecting, for logs' })),
  },
  closed,
);
export const InitializeResult = Type.Object({
  protocol: Type.Literal('airlock-rpc/2', { description: 'airlock-rpc/2: dialogs are ui/ask requests answered by choice id (airlock-rpc/1 had ui/confirm, ui/select and ui/input answered by label)' }),
  server: Type.Object({ name: Type.Literal('airlock'), version: Type.String() }),
  dialogs: Type.Boolean({ description: 'whether approval prompts will be sent to this client' }),
  methods: Type.Array(Type.String(), { description: 'the methods this server answers' }),
  maxLineBytes: Type.Integer({ description: 'a longer line is refused (-32600) without being read whole' }),
  dialogTimeoutMs: Type.Integer({ description: 'how long a dialog that sets no limit of its own waits for an answer before it counts as "no" (the approval prompt sets its own: @airlock/approval\'s timeoutMs, 300 s by default)' }),
  maxRunningCalls: Type.Integer({ description: 'tools/call, tools/batch and tools/preflight requests running at once; later ones wait in line (abort reaches them there too)' }),
  blocked: Type.Optional(Type.Object({ message: Type.String(), fix: Type.String() }, { description: 'set when a policy extension failed to load: every call is refused' })),
});

// ---- tools/list ----------------------------------------------------------------------------------

export const ToolsListParams = Type.Object(
  { provider: Type.Optional(oneOf(PROVIDER_IDS, 'the schema format of `providerTools` (default "mcp": name, description, inputSchema)')) },
  closed,
);
export const RegistryEntry = Type.Object({
  name: Type.String(),
  label: Type.String(),
  description: Type.String(),
  source: Type.String({ description: 'builtin, extension or sdk' }),
  origin: Type.Optional(Type.String({ description: 'the package that registered it' })),
  enabled: Type.Boolean(),
  excluded: Type.Optional(Type.Array(Type.String(), { description: 'why it is not enabled' })),
});
export const ToolsListResult = Type.Object({
  registry: Type.Array(RegistryEntry, { description: 'every tool the host knows' }),
  enabled: Type.Array(Type.String(), { description: 'the names a model may call' }),
  provider: oneOf(PROVIDER_IDS),
  providerTools: Type.Array(Type.Unknown(), { description: 'the enabled tools in that provider\'s function-definition shape' }),
});

// ---- tools/call, tools/batch, tools/preflight ----------------------------------------------------

export const CallParams = Type.Object({ name: ToolName, arguments: Type.Optional(Arguments), id: Type.Optional(ToolCallId), timeoutMs: Type.Optional(TimeoutMs) }, closed);
export const BatchCall = Type.Object({ name: ToolName, arguments: Type.Optional(Arguments), id: Type.Optional(ToolCallId) }, closed);
export const BatchParams = Type.Object(
  {
    calls: Type.Array(BatchCall, { minItems: 1, maxItems: 1000, description: 'the tool calls of one assistant message, in source order' }),
    executionMode: Type.Optional(oneOf(['parallel', 'sequential'], 'default: the settings (parallel)')),
    maxConcurrency: Type.Optional(Type.Integer({ minimum: 1, description: 'at most this many calls run at once (default: the settings, 8)' })),
    timeoutMs: Type.Optional(TimeoutMs),
  },
  closed,
);
export const PreflightParams = Type.Object({ name: ToolName, arguments: Type.Optional(Arguments), id: Type.Optional(ToolCallId) }, closed);

export const ToolResultMessageSchema = Type.Object({
  role: Type.Literal('toolResult'),
  toolCallId: Type.String(),
  toolName: Type.String(),
  content: AgentToolResultSchema.properties.content,
  details: Type.Optional(Type.Unknown({ description: 'for UIs and logs; not for the model' })),
  usage: AgentToolResultSchema.properties.usage,
  isError: Type.Boolean(),
  outcome: oneOf(OUTCOMES),
  terminate: Type.Optional(Type.Boolean()),
  timestamp: Type.Number({ description: 'ms since the epoch' }),
});
export const BatchResult = Type.Object({
  messages: Type.Array(ToolResultMessageSchema, { description: 'one per call, in source order' }),
  terminate: Type.Boolean({ description: 'every result asked to end the run' }),
});
const Effect = oneOf(['allow', 'ask', 'deny']);
export const PreflightResult = Type.Object({
  toolCallId: Type.String(),
  toolName: Type.String(),
  effect: Effect,
  outcome: oneOf(OUTCOMES),
  source: Type.Optional(Type.Unknown({ description: 'who decided (a vote, the kernel, a failing handler, default); absent for an ask' })),
  reason: Type.Optional(Type.String()),
  combined: Type.Optional(Effect),
  votes: Type.Array(Type.Unknown(), { description: 'every authorize vote: handler, effect, rule, reason' }),
  asks: Type.Array(Type.Unknown()),
  proposedArgs: Type.Optional(Type.Unknown()),
  args: Type.Optional(Type.Unknown()),
  provenance: Type.Array(Type.Unknown()),
  resources: Type.Array(Type.Unknown()),
  decision: Type.Optional(Type.Unknown()),
});

// ---- agent/prompt -------------------------------------------------------------------------------

export const RUN_STATUSES = ['done', 'terminated', 'turn_limit', 'aborted', 'failed'] as const;

export const AgentPromptParams = Type.Object(
  {
    prompt: Type.String({ minLength: 1, description: 'what the person asks the agent' }),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          '`provider:name` (openai:gpt-5-mini, anthropic:claude-sonnet-4-5); default: the server\'s --model. Keys and base URLs are the server\'s own; `scripted:FILE` only as the server\'s --model (it reads a file on the server)',
      }),
    ),
    maxTurns: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'model requests at most (default 50)' })),
    systemPrompt: Type.Optional(Type.String({ description: 'replaces the system prompt built from the enabled tools' })),
  },
  closed,
);
export const AgentPromptResult = Type.Object({
  runId: Type.String({ description: 'the runId every agent/event of this run carries' }),
  status: oneOf(RUN_STATUSES, 'done: the model answered; terminated: the tools ended the run; turn_limit, aborted, failed: see reason'),
  reason: Type.Optional(Type.String({ description: 'why the run did not end with an answer, and what to do' })),
  finalMessage: Type.Optional(Type.Unknown({ description: 'the last assistant message: { role: "assistant", content: [text, thinking, toolCall blocks], stopReason, provider, model, usage?, timestamp }' })),
  messages: Type.Array(Type.Unknown(), { description: 'every message of the run in order: the prompt, assistant messages, tool results' }),
  turns: Type.Integer({ minimum: 0 }),
  usage: Type.Unknown({ description: 'token usage: { model, tools }' }),
});
export const AgentEventNotification = Type.Object({
  requestId: RequestId,
  event: Type.Object(
    { type: Type.String({ description: 'agent_start, turn_start, message_start/update/end, tool_execution_start/update/end, tool_decision, turn_end, agent_end (docs/agent-loop.md)' }), runId: Type.String() },
    { description: 'one event of the run; message_update carries only its delta (text_delta, thinking_delta, toolcall_*; the whole message comes with message_end); message_update and tool_execution_update are dropped while the client is behind on reading' },
  ),
});

// ---- abort, events -------------------------------------------------------------------------------

export const AbortParams = Type.Object({ id: Type.Optional(RequestId) }, { ...closed, description: 'the id of the running request to stop; leave it out to stop every running request' });
export const AbortResult = Type.Object({ aborted: Type.Integer({ minimum: 0, description: 'how many running requests were told to stop (they still answer, with outcome "aborted")' }) });

export const SubscribeParams = Type.Object({ types: Type.Optional(Type.Array(oneOf(EVENT_TYPES), { minItems: 1, description: 'only these event types (default: all)' })) }, closed);
export const SubscribeResult = Type.Object({ subscription: Type.String({ description: 'names the events/event notifications and events/unsubscribe' }) });
export const UnsubscribeParams = Type.Object({ subscription: Type.String() }, closed);
export const UnsubscribeResult = Type.Object({ unsubscribed: Type.Boolean({ description: 'false when there was no such subscription' }) });
export const EventNotification = Type.Object({
  subscription: Type.String(),
  event: Type.Object({ type: oneOf(EVENT_TYPES), toolCallId: Type.String() }, { description: 'a kernel event (see docs/kernel.md); tool_execution_update partials are redacted like results' }),
});

export const ToolsChangedParams = Type.Object({
  enabled: Type.Array(Type.String(), { description: 'the enabled tools now, as tools/list names them (read tools/list again for their schemas)' }),
});

// ---- dialogs: requests from the server to the client ---------------------------------------------

const DialogTimeout = Type.Integer({ minimum: 0, description: 'ms left before the ask counts as "no" (for a countdown)' });
/** The ask as the host made it (choices always listed for confirm and choice), plus the time left. */
export const AskParams = Type.Object({ ...AskRequest.properties, timeoutMs: Type.Optional(DialogTimeout) });
export type AskParams = Static<typeof AskParams>;
export const DialogCancelParams = Type.Object({ id: Type.String({ description: 'the id of the ui/ask request the server stopped waiting for: close that dialog' }) });

/** One method the client may call. */
export interface MethodSpec {
  summary: string;
  params: TSchema;
  result: TSchema;
  /** What a valid `params` looks like: shown in the -32602 message. */
  example: string;
}

/** The methods a client calls, in the order docs/rpc.md lists them. */
export const METHODS = {
  initialize: { summary: 'Optional, first: say whether this client answers dialogs.', params: InitializeParams, result: InitializeResult, example: '{"dialogs":true}' },
  'tools/list': { summary: 'The registry, the enabled set and the enabled tools in one provider\'s schema format.', params: ToolsListParams, result: ToolsListResult, example: '{"provider":"openai"}' },
  'tools/call': { summary: 'Run one tool call through the full pipeline; the answer is its ToolResultMessage, whatever the outcome.', params: CallParams, result: ToolResultMessageSchema, example: '{"name":"read","arguments":{"path":"README.md"}}' },
  'tools/batch': { summary: 'Run the tool calls of one assistant message (approval in source order, then concurrently).', params: BatchParams, result: BatchResult, example: '{"calls":[{"name":"ls","arguments":{}},{"name":"read","arguments":{"path":"a.txt"}}]}' },
  'tools/preflight': { summary: 'The kernel\'s dry run: what policy would decide for this call, without running it or asking anyone.', params: PreflightParams, result: PreflightResult, example: '{"name":"bash","arguments":{"command":"rm -rf build"}}' },
  'agent/prompt': {
    summary: "Run the agent loop on the server's host: the model's tool calls go through the same pipeline; the loop's events stream as agent/event notifications; the answer is the run's result with the final assistant message.",
    params: AgentPromptParams,
    result: AgentPromptResult,
    example: '{"prompt":"What is in README.md?","model":"openai:gpt-5-mini"}',
  },
  abort: { summary: 'Stop a running request by its id, or every running request.', params: AbortParams, result: AbortResult, example: '{"id":7}' },
  'events/subscribe': { summary: 'Receive kernel events of every call as events/event notifications.', params: SubscribeParams, result: SubscribeResult, example: '{"types":["tool_execution_update","tool_execution_end"]}' },
  'events/unsubscribe': { summary: 'Stop a subscription.', params: UnsubscribeParams, result: UnsubscribeResult, example: '{"subscription":"s1"}' },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = Static<(typeof METHODS)[M]['params']>;
export type ResultOf<M extends MethodName> = Static<(typeof METHODS)[M]['result']>;

/** What the server sends the client: dialog requests and notifications. */
export const SERVER_MESSAGES = {
  'ui/ask': {
    kind: 'request',
    summary:
      'Ask the person: yes/no (`confirm`), one of the choices (`choice`: the approval prompt) or a line of text (`text`). Answer with the id of a choice, the text, or why there is no answer; anything else counts as no.',
    params: AskParams,
    result: AskAnswer,
  },
  'ui/cancel': { kind: 'notification', summary: 'The server stopped waiting for an ask (timeout or abort): close it; a later answer is ignored.', params: DialogCancelParams },
  'events/event': { kind: 'notification', summary: 'One kernel event, for a subscription.', params: EventNotification },
  'agent/event': { kind: 'notification', summary: 'One event of a running agent/prompt, named by its request id.', params: AgentEventNotification },
  'tools/changed': {
    kind: 'notification',
    summary: "The enabled set changed while the server runs (an extension's tool set: an MCP server behind mcp-tools added or dropped a tool); sent once per change.",
    params: ToolsChangedParams,
  },
} as const;

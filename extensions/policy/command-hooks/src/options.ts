import Type, { type Static } from 'typebox';

/** The events this extension runs; Claude Code's other events have no Airlock counterpart here. */
export const TOOL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const;
export type ToolEvent = (typeof TOOL_EVENTS)[number];

/** Claude Code's default time limit of the 2025 docs, which existing scripts were written for. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

const FailureMode = Type.Union([Type.Literal('open'), Type.Literal('closed')]);

/**
 * One handler, as Claude Code writes it: `{ "type": "command", "command": "…", "timeout": 30 }`.
 * `failure` is Airlock's own addition (what a crash, a timeout or an unexpected exit code means).
 */
export const CommandHook = Type.Object(
  {
    type: Type.Literal('command', { description: 'Only "command" hooks run here (http, prompt, agent and mcp_tool hooks do not).' }),
    command: Type.String({ minLength: 1, description: 'Run with `sh -c`, stdin the event as JSON. $CLAUDE_PROJECT_DIR is set.' }),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: `Seconds before the hook is stopped and counts as failed (default ${DEFAULT_TIMEOUT_SECONDS}).` })),
    failure: Type.Optional(FailureMode),
    statusMessage: Type.Optional(Type.String({ description: 'Accepted for compatibility; not shown.' })),
  },
  { additionalProperties: false },
);
export type CommandHook = Static<typeof CommandHook>;

/** `{ "matcher": "Edit|Write", "hooks": [ … ] }`; no matcher (or `""`, `"*"`) matches every tool. */
export const MatcherGroup = Type.Object(
  {
    matcher: Type.Optional(Type.String({ description: 'Tool names (`Bash`, `Edit|Write`) or an unanchored regular expression (`mcp__.*`), as Claude Code matches them.' })),
    hooks: Type.Array(CommandHook),
  },
  { additionalProperties: false },
);
export type MatcherGroup = Static<typeof MatcherGroup>;

const EventGroups = Type.Array(MatcherGroup);

/**
 * Settings: `extensions: [{ "name": "@airlock/command-hooks", "options": { "hooks": { … } } }]`,
 * where `hooks` is pasted from a Claude Code settings file. Commands are code: only a trusted
 * layer (the user's settings, a trusted project, the command line) may name them.
 */
export const CommandHooksOptions = Type.Object({
  hooks: Type.Object(
    {
      PreToolUse: Type.Optional(EventGroups),
      PostToolUse: Type.Optional(EventGroups),
      PostToolUseFailure: Type.Optional(EventGroups),
    },
    {
      default: {},
      // Claude Code's other events (Stop, SessionStart, …) are accepted so a pasted block loads; they are reported and never run.
      additionalProperties: EventGroups,
      description: 'Claude Code\'s "hooks" block: event → matcher groups → command hooks.',
      'x-airlock-value': 'code',
    },
  ),
  onFailure: Type.Object(
    {
      PreToolUse: Type.Optional(FailureMode),
      PostToolUse: Type.Optional(FailureMode),
      PostToolUseFailure: Type.Optional(FailureMode),
    },
    {
      default: {},
      description: 'What a hook that crashes, times out or exits with a code other than 0 or 2 means, per event (a hook\'s own `failure` wins). Default: closed for PreToolUse (the call is denied), open for the others (logged).',
      // Opening a failure mode turns a guard off: only a trusted layer may.
      'x-airlock-value': 'guard',
    },
  ),
  disableAllHooks: Type.Boolean({ default: false, description: 'Run no hook at all (Claude Code\'s switch).', 'x-airlock-value': 'guard' }),
});
export type CommandHooksOptions = Static<typeof CommandHooksOptions>;

/** The failure mode of one hook of `event`: its own, else the event's setting, else the default. */
export function failureModeOf(hook: CommandHook, event: ToolEvent, options: CommandHooksOptions): 'open' | 'closed' {
  return hook.failure ?? options.onFailure[event] ?? (event === 'PreToolUse' ? 'closed' : 'open');
}

import { compileMatcher } from './matcher.js';
import { DEFAULT_TIMEOUT_SECONDS, failureModeOf, TOOL_EVENTS, type CommandHook, type CommandHooksOptions, type ToolEvent } from './options.js';

/** One configured command hook, ready to match and run. */
export interface CompiledHook {
  readonly event: ToolEvent;
  readonly command: string;
  readonly timeoutMs: number;
  readonly failure: 'open' | 'closed';
  readonly matches: (ccToolName: string) => boolean;
}

/** The hooks of the events Airlock runs, and the names of the configured events it does not run. */
export interface HookSet {
  /** The hooks of `event` whose matcher takes `ccToolName`, in configuration order. */
  matching(event: ToolEvent, ccToolName: string): CompiledHook[];
  /** Whether any hook is configured for `event`. */
  has(event: ToolEvent): boolean;
  /** The longest time limit among the hooks of `event`, in ms (0 when none). */
  longestTimeoutMs(event: ToolEvent): number;
  /** Configured events this extension never runs (Stop, SessionStart, …). */
  readonly ignoredEvents: readonly string[];
}

/**
 * Compile the `hooks` block. Throws on a matcher that is not a valid regular expression.
 *
 * @example
 * compileHooks({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }] }, onFailure: {}, disableAllHooks: false })
 *   .matching('PreToolUse', 'Bash').length // 1
 */
export function compileHooks(options: CommandHooksOptions): HookSet {
  const byEvent = new Map<ToolEvent, CompiledHook[]>(TOOL_EVENTS.map((e) => [e, []]));
  for (const event of TOOL_EVENTS) {
    for (const group of options.hooks[event] ?? []) {
      const matches = compileMatcher(group.matcher);
      for (const hook of group.hooks) byEvent.get(event)!.push(compile(event, hook, matches, options));
    }
  }
  const ignoredEvents = Object.keys(options.hooks).filter((name) => !(TOOL_EVENTS as readonly string[]).includes(name));
  return {
    matching: (event, name) => byEvent.get(event)!.filter((h) => h.matches(name)),
    has: (event) => byEvent.get(event)!.length > 0,
    longestTimeoutMs: (event) => Math.max(0, ...byEvent.get(event)!.map((h) => h.timeoutMs)),
    ignoredEvents,
  };
}

function compile(event: ToolEvent, hook: CommandHook, matches: (name: string) => boolean, options: CommandHooksOptions): CompiledHook {
  return { event, command: hook.command, timeoutMs: Math.round((hook.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000), failure: failureModeOf(hook, event, options), matches };
}

/** A hook's command as a short label for reasons and logs. */
export function hookLabel(hook: CompiledHook): string {
  const oneLine = hook.command.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 80 ? oneLine : `${oneLine.slice(0, 77)}...`;
}

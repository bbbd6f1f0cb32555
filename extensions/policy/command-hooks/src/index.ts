import type { Extension } from '@airlock/contract';
import { homedir } from 'node:os';
import { analyzeShell } from '@airlock/shell-analysis';
import { hookEnv } from './env.js';
import { expandVariables, namedPaths, type HookFile } from './hook-files.js';
import { hookFilesProfile, protectHookFiles } from './protect-hook-files.js';
import { compileHooks } from './hook-set.js';
import { CommandHooksOptions, TOOL_EVENTS } from './options.js';
import { postToolUseHandler } from './post-tool-use.js';
import { judgeCall, needsRejudging, shownAtAuthorize, VerdictStore, type PreDeps } from './pre-tool-use.js';
import { mappingFor } from './tool-map.js';

/** Room for spawning, the sandbox and reading the answer, beyond the hooks' own time limits. */
const HANDLER_MARGIN_MS = 5_000;

/**
 * Runs Claude Code command hooks as Airlock handlers:
 * - PreToolUse runs once per call, in the tool_call transform phase (its `updatedInput` is a
 *   transform the kernel re-validates); its decision is kept per call and voted in the authorize
 *   phase, where it combines with every other policy deny > ask > allow;
 * - PostToolUse / PostToolUseFailure run in the tool_result transform phase, after redaction.
 * Hooks run with `sh -c` inside the OS sandbox when it is active, with the scrubbed environment
 * and a time limit (default 60 s). The `hooks` option is code: an untrusted project cannot set it.
 */
const extension = {
  name: 'command-hooks',
  options: CommandHooksOptions,
  async setup(api, options) {
    if (options.disableAllHooks) {
      api.log.info('disableAllHooks is true: no command hook runs.');
      return;
    }
    const hooks = compileHooks(options);
    if (hooks.ignoredEvents.length > 0) {
      api.log.warn(`hooks for ${hooks.ignoredEvents.join(', ')} are not run by Airlock (only PreToolUse, PostToolUse and PostToolUseFailure are); see docs/command-hooks.md.`);
    }
    const base = Object.keys(api.env).length > 0 ? api.env : process.env;
    const env = hookEnv(base, api.cwd);
    await guardHookFiles(api, options, env, base.HOME ?? homedir());
    const deps: PreDeps = {
      hooks,
      runner: {
        cwd: api.cwd,
        env,
        ...(api.sandbox === undefined ? {} : { sandbox: api.sandbox }),
        ...(api.processSandbox === undefined ? {} : { wrap: (argv: readonly string[], options: Parameters<NonNullable<typeof api.processSandbox>['wrap']>[1]) => api.processSandbox!.wrap(argv, options) }),
      },
      facts: {
        sessionId: api.sessionId,
        cwd: api.cwd,
        // Read when a hook runs: a transcript is opened after the host, and who can answer may change.
        canAsk: () => api.ui.interactive,
        transcriptPath: () => api.transcriptPath?.(),
      },
      log: api.log,
    };
    const verdicts = new VerdictStore();
    if (hooks.has('PreToolUse')) {
      const timeoutMs = hooks.longestTimeoutMs('PreToolUse') + HANDLER_MARGIN_MS;
      api.on(
        'tool_call',
        async (event) => {
          const matching = hooks.matching('PreToolUse', mappingName(event.toolName));
          if (matching.length === 0) return undefined;
          const verdict = await judgeCall(deps, event, matching, true);
          verdicts.set(event.toolCallId, { ...verdict, judgedAt: event.provenance.length });
          return verdict.updatedArgs;
        },
        { name: 'pre-tool-use-run', phase: 'transform', timeoutMs },
      );
      api.on(
        'tool_call',
        async (event) => {
          const matching = hooks.matching('PreToolUse', mappingName(event.toolName));
          if (matching.length === 0) return undefined;
          const verdict = verdicts.get(event.toolCallId);
          if (verdict === undefined) {
            return { effect: 'deny', reason: 'The PreToolUse hooks for this call did not run (the transform phase did not reach them), so the call is not allowed.', rule: 'command-hooks' };
          }
          // The hooks judge what runs: the final arguments, and each path as the file the policy
          // judges now (also on the kernel's re-check of a batch, after an earlier call made a link).
          const shown = shownAtAuthorize(event, api.cwd);
          if (!needsRejudging(event, verdict, shown)) return verdict.vote;
          const again = await judgeCall(deps, event, matching, false, shown);
          verdicts.set(event.toolCallId, { ...verdict, vote: again.vote, context: again.context, shown, judgedAt: event.provenance.length });
          return again.vote;
        },
        { name: 'pre-tool-use', phase: 'authorize', timeoutMs },
      );
    }
    const postTimeout = Math.max(hooks.longestTimeoutMs('PostToolUse'), hooks.longestTimeoutMs('PostToolUseFailure')) + HANDLER_MARGIN_MS;
    api.on('tool_result', postToolUseHandler(deps, verdicts), { name: 'post-tool-use', phase: 'transform', timeoutMs: postTimeout });
  },
} satisfies Extension<typeof CommandHooksOptions>;

/**
 * The files the hook commands run are policy code: the agent must not be able to rewrite them.
 * Every call that writes one is denied (authorize), and the OS sandbox keeps them read-only.
 */
async function guardHookFiles(api: Parameters<typeof extension.setup>[0], options: CommandHooksOptions, env: Readonly<Record<string, string>>, home: string): Promise<void> {
  const commands = [...new Set(TOOL_EVENTS.flatMap((e) => (options.hooks[e] ?? []).flatMap((g) => g.hooks.map((h) => h.command))))];
  if (commands.length === 0) return;
  const files: HookFile[] = [];
  const folders = new Set<string>();
  const unknown = new Set<string>();
  for (const command of commands) {
    const expanded = expandVariables(command, env);
    const named = namedPaths(await analyzeShell(expanded), expanded, command, api.cwd, home);
    files.push(...named.files);
    for (const f of named.folders) folders.add(f);
    for (const w of named.unknown) unknown.add(w);
  }
  if (unknown.size > 0) {
    api.log.warn(`hook commands name ${[...unknown].join(', ')}, whose path is only known when the hook runs: those files are not kept from the agent. Write the path out, or use $CLAUDE_PROJECT_DIR or $HOME (see docs/command-hooks.md).`);
  }
  if (folders.size > 0) {
    api.log.warn(`hook commands name the folder${folders.size === 1 ? '' : 's'} ${[...folders].join(', ')}: only the files they name are kept from the agent, not what else such a folder holds (see docs/command-hooks.md).`);
  }
  api.on('tool_call', protectHookFiles(files, home, api.cwd), { name: 'protect-hook-scripts', phase: 'authorize' });
  api.registerSandboxProfile?.(({ cwd }) => hookFilesProfile(files, cwd));
}

function mappingName(toolName: string): string {
  return mappingFor(toolName).ccName;
}



export default extension;
export { compileHooks, hookLabel, type CompiledHook, type HookSet } from './hook-set.js';
export { compileMatcher } from './matcher.js';
export { CommandHooksOptions, DEFAULT_TIMEOUT_SECONDS } from './options.js';
export { readAnswer, HookOutput } from './answer.js';
export { OUTPUT_CAP_BYTES, runHook, type HookRun, type HookRunner } from './run-hook.js';
export { mappingFor, type PathTarget, type ToolMapping } from './tool-map.js';
export { inputFields, shownInput, targetFromResources, targetNow, type ShownInput } from './hook-input.js';
export { expandVariables, namedPaths, type HookFile, type NamedPaths } from './hook-files.js';
export { hookFilesProfile, protectHookFiles, PROTECT_RULE } from './protect-hook-files.js';

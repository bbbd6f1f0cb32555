import type { Extension } from '@airlock/contract';
import { checkExamples } from './examples.js';
import { OptionsSchema } from './options.js';
import { createPolicy } from './policy.js';
import { loadShell } from './load-shell.js';
import { SettingsSchema } from './settings.js';

/**
 * The path-policy extension: one authorize handler that votes on every call from the settings'
 * `permissions` rules and the defaults. The host hands the rules checked against SettingsSchema;
 * they compile once here, into the one policy the handler, the access check, the sandbox profile
 * and `airlock policy` (setup returns it to the commands) all use. A malformed rule or a failing
 * inline example throws, and the host then blocks every tool (a policy that half-loaded would
 * fail open).
 */
const extension = {
  name: 'path-policy',
  options: OptionsSchema,
  settings: SettingsSchema,
  async setup(api, options) {
    const policy = refusingSettings(() => createPolicy({
      rules: api.settings.permissions,
      ...(options.roots === undefined ? {} : { roots: options.roots }),
      cwd: api.cwd,
      defaultEffect: options.defaultEffect,
      maxCommandLength: options.maxCommandLength,
      extraSecrets: options.extraSecrets,
      loadShell,
      ...(api.protectedPaths === undefined ? {} : { protectedPaths: api.protectedPaths }),
      // Without an active sandbox the analysis is the boundary again, and asks for what it cannot follow.
      ...(api.sandbox === undefined ? {} : { sandboxed: api.sandbox.active }),
    }));
    const failures = await checkExamples(policy);
    if (failures.length > 0) {
      const where = [...new Set(failures.map((f) => f.where))].join(', ');
      throw settingsProblem(
        failures.map((f) => f.problem).join('\n'),
        `correct the pattern or the example of the rule${failures.length === 1 ? '' : 's'} at ${where} in your settings, then check every example with \`airlock policy test\` (it names the file).`,
      );
    }

    api.on(
      'tool_call',
      async (event) => {
        const d = await policy.decide({
          tool: event.toolName,
          args: event.args,
          resources: event.resources,
          cwd: api.cwd,
          ...(event.analyzeCommand === undefined ? {} : { analyzeCommand: event.analyzeCommand }),
          ...(event.toolEffects === 'unknown' ? { effects: 'unknown' as const } : {}),
        });
        // The hosts go with the vote: if the call is allowed, the OS sandbox opens them for it alone.
        // Only names the proxy could see (an escaped or non-ASCII spelling never matches a request).
        const hosts = d.hosts.filter((h) => /^[a-z0-9_.:-]{1,253}$/.test(h));
        return { effect: d.effect, reason: d.reason, rule: d.rule, ...(hosts.length > 0 ? { hosts } : {}) };
      },
      { name: 'path-policy/rules', phase: 'authorize' },
    );
    // The same rules, file by file, for tools that open many files in one call (grep over a tree).
    api.registerAccessCheck(({ kind, path, tool, cwd, scope }) => policy.checkFile({ kind, path, tool, cwd, scope }), { name: 'path-policy/files' });
    // The same rules once more, for the OS sandbox under every process a tool starts.
    api.registerSandboxProfile?.(({ cwd }) => policy.sandboxProfile(cwd));
    // For `airlock policy explain` and `policy test` (input.extension.fromSetup): this policy, not a second build.
    return policy;
  },
} satisfies Extension<typeof OptionsSchema, typeof SettingsSchema>;

/**
 * An error saying the settings are wrong, not the extension: its `fix` is what the host offers
 * (instead of "remove the extension", which would drop the policy over a typo in one rule).
 */
function settingsProblem(message: string, fix: string): Error {
  return Object.assign(new Error(message), { fix });
}

/** A malformed rule (or root, or secret pattern) is a settings problem too. */
function refusingSettings<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'RuleError') throw error;
    throw settingsProblem(error.message, 'correct that rule (or the path-policy options) in your settings; `airlock policy test` checks them without running anything.');
  }
}

export { loadShell } from './load-shell.js';

export default extension;
export { createPolicy, NO_SANDBOX_RULE, type Policy, type PolicyCall, type PolicyDecision, type PolicyOptions, type FileQuery, type FileVerdict, type DerivedResource, type ShellAnalyzer } from './policy.js';
export { checkExamples, exampleCall, type ExampleFailure } from './examples.js';
export { SettingsSchema, type Settings } from './settings.js';
export { OptionsSchema, DEFAULT_EFFECT, type Options, type DefaultEffect } from './options.js';
export { RuleError } from './rules/compile.js';
export type { RuleEntry, RuleInput } from './rules/types.js';
export type { Finding, MatchedRule } from './items.js';
export { SECRET_PATTERNS } from './secrets.js';
export { CREDENTIAL_COMMANDS, credentialCommand, type CredentialCommand, type CredentialMatch } from './credential-commands.js';
export { sandboxProfile, literalPrefix } from './sandbox-profile.js';
export { unsandboxedRisk } from './unsandboxed.js';
export { PROTECTED_RULE } from './judge.js';
export { EXEC_CONFIG_RULE } from './exec-config/set.js';
export { EXEC_CONFIG_PATTERNS, type ExecConfigPattern } from './exec-config/patterns.js';
export { executableConfigFor, type ExecConfigForWorkspace, type ExecConfigPath } from './exec-config/export.js';
export { createCaseProbe, type FoldProbe } from './paths/case-fold.js';

import { homedir } from 'node:os';
import type { Effect, ProtectedPaths, Resource, SandboxProfile } from '@airlock/contract';
import type { Analysis } from '@airlock/shell-analysis';
import { isLiteral, normalizeCommand } from './glob.js';
import { judge, PROTECTED_RULE, type JudgeContext } from './judge.js';
import { strictest, type Finding, type Item, type MatchedRule } from './items.js';
import { DEFAULT_EFFECT, type DefaultEffect, type DefaultEffectInput } from './options.js';
import { createCaseProbe, type FoldProbe } from './paths/case-fold.js';
import { canonicalFilePaths, canonicalPaths, type Canonical } from './paths/resolve.js';
import { createPathSpace, type PathSpace } from './paths/space.js';
import { compileRules, pathPattern, RuleError } from './rules/compile.js';
import type { CompiledRule, RuleEntry } from './rules/types.js';
import { compileProtected } from './protected.js';
import { createExecConfigSet } from './exec-config/set.js';
import { SECRET_PATTERNS } from './secrets.js';
import { secretUnion } from './secret-union.js';
import { shellItems } from './shell.js';
import { sandboxProfile } from './sandbox-profile.js';
import { unsandboxedRisk } from './unsandboxed.js';

/** The rule an ask carries when a command's risk comes from running without the OS sandbox. */
export const NO_SANDBOX_RULE = 'default:no-sandbox';

/** Parses a command line; `@airlock/shell-analysis`'s analyzeShell, or a stand-in in tests. */
export type ShellAnalyzer = (command: string, options?: { maxLength?: number; maxDepth?: number }) => Promise<Analysis>;

export interface PolicyOptions {
  /** Rules with their list (effect) and, when known, layer and file. Settings give allow rules only here. */
  rules: readonly RuleEntry[];
  /** Workspace roots: absolute paths (or relative to cwd; `~/` is home). Default: [cwd]. */
  roots?: readonly string[];
  /** The folder relative paths resolve against when a call does not say. */
  cwd: string;
  home?: string;
  defaultEffect?: DefaultEffectInput;
  maxCommandLength?: number;
  extraSecrets?: readonly string[];
  /** Whether a folder's filesystem folds case; default: probe it (cached per folder). */
  caseFolding?: FoldProbe;
  /** Loads the command parser, on the first call that runs a command: other calls never pay for it. */
  loadShell: () => Promise<ShellAnalyzer>;
  /** Airlock's own files (the host's `api.protectedPaths`): writing them is denied, whatever the rules say. */
  protectedPaths?: ProtectedPaths;
  /** Where the user's git config lives (`$XDG_CONFIG_HOME`); default: `~/.config`. Its core.hooksPath counts. */
  xdgConfigHome?: string;
  /**
   * Whether an OS sandbox enforces the rules under commands (the host's `api.sandbox.active`).
   * When false, a command with a construct the analysis cannot follow (a string run as code) is
   * asked about. Default: true (no extra asks).
   */
  sandboxed?: boolean;
}

/** What a call looks like to the policy. */
export interface PolicyCall {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  /** What the tool declared (its resources()). */
  resources: readonly Resource[];
  /** The folder the call runs in; default: the policy's cwd. */
  cwd?: string;
  /**
   * The call's shared shell analysis (`event.analyzeCommand`): the same parse every other handler
   * sees, computed once. Without it (a tool with no analyzer, or a call judged outside a kernel)
   * the policy parses the command as bash itself.
   */
  analyzeCommand?: (command: string) => Promise<Analysis>;
  /** `'unknown'` when the tool says nobody knows what its calls do (`event.toolEffects`): with no rule naming the tool, it asks. */
  effects?: 'unknown';
}

/** A resource as the policy judged it, with every spelling of a file it compared. */
export type DerivedResource =
  | { kind: 'fs.read' | 'fs.write'; path: string; paths: string[]; from: 'resource' | 'written' | 'shell' }
  | { kind: 'exec'; command: string; from: 'resource' | 'shell' }
  | { kind: 'net'; host: string; from: 'resource' | 'shell' };

export interface PolicyDecision {
  effect: Effect;
  reason: string;
  /** The rule id or surface that decided, or `default:<name>`. */
  rule: string;
  /** Every rule that matched anything in the call, with its layer and file. */
  matched: MatchedRule[];
  /** One verdict per thing the call touches. */
  findings: Finding[];
  resources: DerivedResource[];
  /** The parse of each command line in the call (bash, or any tool declaring exec). */
  shell?: { command: string; analysis: Analysis }[];
  /** The hosts the call connects to, as named (declared, or found by the shell analysis); lower case, each once. */
  hosts: string[];
}

export interface Policy {
  readonly rules: readonly CompiledRule[];
  readonly roots: readonly string[];
  decide(call: PolicyCall): Promise<PolicyDecision>;
  /**
   * The verdict on one file a tool opens inside an authorized call (grep's walk), synchronously:
   * the same read/write rules, secret defaults, symlink and case handling as `decide` gives a
   * file argument, without the call-level items (the call was judged already).
   *
   * @example policy.checkFile({ kind: 'fs.read', path: '/work/.env', tool: 'grep' }).effect // 'deny'
   */
  checkFile(file: FileQuery): FileVerdict;
  /**
   * The OS sandbox's rules for commands started in `cwd`, derived from these compiled rules (see
   * sandbox-profile.ts): the one source of truth for what a sandboxed process may read and write.
   *
   * @example policy.sandboxProfile('/work').writable // ['/work']
   */
  sandboxProfile(cwd?: string): SandboxProfile;
}

export interface FileQuery {
  kind: 'fs.read' | 'fs.write';
  path: string;
  tool: string;
  cwd?: string;
  /** One call's scope (see the kernel's AccessQuery): folders' real paths are cached within it. */
  scope?: number;
  /** Folders' real paths known to the caller (a walk of its own, such as the sandbox profile's); wins over `scope`. */
  realDirs?: Map<string, string>;
  /** The caller saw that `path` is not a symbolic link (the sandbox's walk): one lstat fewer per entry. */
  notLink?: boolean;
}

export interface FileVerdict {
  effect: Effect;
  reason: string;
  rule: string;
}

/**
 * Compile rules once and return the decision function. Throws a RuleError naming the rule for a
 * malformed one. Pure apart from looking at the filesystem (real paths, case probe, globs).
 *
 * @example
 * const policy = createPolicy({ rules: [{ effect: 'deny', rule: 'bash(git push --force*)' }], cwd: '/work', loadShell });
 * (await policy.decide({ tool: 'read', args: { path: '.env' }, resources: [] })).effect // 'deny'
 */
export function createPolicy(o: PolicyOptions): Policy {
  const home = o.home ?? homedir();
  const roots = (o.roots && o.roots.length > 0 ? o.roots : [o.cwd]).map((r) => {
    const c = canonicalPaths(r, o.cwd, home);
    if (!c.ok) throw new RuleError(`The workspace root ${JSON.stringify(r)} cannot be used: ${c.reason}.`);
    return c.paths[0]!;
  });
  const space: PathSpace = createPathSpace({ roots, home, probe: o.caseFolding ?? createCaseProbe() });
  const anchors = { roots: space.roots, home: space.home };
  const rules = compileRules(o.rules, anchors);
  const secrets = [...SECRET_PATTERNS, ...(o.extraSecrets ?? [])].map((p, i) => {
    try {
      return pathPattern(p, 'deny', anchors, i < SECRET_PATTERNS.length ? 'airlock' : 'outside');
    } catch (error) {
      throw new RuleError(`The secret pattern ${JSON.stringify(p)} (built in, or from extraSecrets) is malformed: ${(error as Error).message}`);
    }
  });
  // For verdicts: the built-in ones tested as one (secret-union.ts); the sandbox profile keeps each.
  const judgedSecrets = [secretUnion(secrets.slice(0, SECRET_PATTERNS.length)), ...secrets.slice(SECRET_PATTERNS.length)];
  const protect = compileProtected(o.protectedPaths, space.roots, anchors, space);
  const exec = createExecConfigSet({ roots: space.roots, home, anchors, space, ...xdg(o) });
  const defaults: DefaultEffect = { ...DEFAULT_EFFECT, ...o.defaultEffect };
  const maxLength = o.maxCommandLength ?? 10000;

  // Folders' real paths, per call scope: a walk asks about thousands of files in a few folders.
  // A few scopes are kept, for calls of one batch running side by side.
  const scopes = new Map<number, Map<string, string>>();
  const dirCache = (scope: number): Map<string, string> => {
    let dirs = scopes.get(scope);
    if (dirs === undefined) {
      if (scopes.size >= 8) scopes.delete(scopes.keys().next().value as number);
      scopes.set(scope, (dirs = new Map()));
    }
    return dirs;
  };

  let analyzer: Promise<ShellAnalyzer> | undefined;
  const analyze = async (command: string): Promise<Analysis> => {
    analyzer ??= o.loadShell();
    return (await analyzer)(command, { maxLength });
  };

  const policy: Policy = {
    rules,
    roots: space.roots,
    sandboxProfile(cwd) {
      return sandboxProfile(
        {
          roots: space.roots,
          secrets,
          secretsDenied: defaults.secretRead === 'deny',
          rules,
          netDefault: defaults.net,
          judgeHost: (host) => judge({ type: 'net', host }, { tool: 'bash', rules, defaults, space, secrets: judgedSecrets, exec }).effect,
          protectedPaths: o.protectedPaths,
          checkFile: (f) => policy.checkFile(f),
          protectedAt: (path) => protect?.covering(path),
          execConfig: { home, ...xdg(o) },
        },
        cwd ?? o.cwd,
      );
    },
    checkFile({ kind, path, tool, cwd, scope, realDirs, notLink }) {
      if (kind === 'fs.write') exec.reset();
      const c = canonicalFilePaths(path, cwd ?? o.cwd, home, realDirs ?? (scope === undefined ? new Map() : dirCache(scope)), notLink === true);
      if (!c.ok) return { effect: 'deny', rule: 'default:unresolvable-path', reason: `${JSON.stringify(path)}: ${c.reason}` };
      const finding = judge({ type: 'fs', kind, given: path, paths: c.paths, from: 'resource' }, { tool, rules, defaults, space, secrets: judgedSecrets, exec });
      return { effect: finding.effect, reason: finding.reason, rule: finding.rule };
    },
    async decide(call) {
      exec.reset();
      const cwd = call.cwd ?? o.cwd;
      const items: Item[] = [];
      const resources: DerivedResource[] = [];
      const shell: { command: string; analysis: Analysis }[] = [];
      const seen = new Map<string, Canonical>();
      const file = (kind: 'fs.read' | 'fs.write', raw: string, from: 'resource' | 'written') => {
        const c = canonicalPaths(raw, cwd, home, seen);
        if (!c.ok) {
          items.push({ type: 'fixed', subject: `${kind} ${JSON.stringify(raw)}`, effect: 'deny', rule: 'default:unresolvable-path', reason: `${JSON.stringify(raw)}: ${c.reason}` });
          return;
        }
        items.push({ type: 'fs', kind, given: raw, paths: c.paths, from });
        resources.push({ kind, path: raw, paths: c.paths, from });
      };

      // Each file also as the model wrote it: `path` is the file the tool opens (links resolved),
      // so the link or relative name the model named (and every hop) is judged from `written`.
      // The same for any tool that declares it, built in or not.
      let written = false;
      for (const r of call.resources) {
        if ((r.kind === 'fs.read' || r.kind === 'fs.write') && r.written !== undefined) {
          file(r.kind, r.written, 'written');
          written = true;
        }
      }
      // The fallback for a tool that declares no written path: its string `path` argument is still
      // judged (by Tool(path) rules; which access it means is the tool's to say), so a tool that
      // declares nothing cannot slip a path past them.
      const arg = call.args.path;
      if (!written && typeof arg === 'string') {
        const c = canonicalPaths(arg, cwd, home, seen);
        items.push(c.ok ? { type: 'arg-path', given: arg, paths: c.paths } : { type: 'fixed', subject: `${call.tool} ${JSON.stringify(arg)}`, effect: 'deny', rule: 'default:unresolvable-path', reason: `${JSON.stringify(arg)}: ${c.reason}` });
      }

      for (const r of call.resources) {
        if (r.kind === 'fs.read' || r.kind === 'fs.write') file(r.kind, r.path, 'resource');
        else if (r.kind === 'net') {
          items.push({ type: 'net', host: r.host.toLowerCase() });
          resources.push({ kind: 'net', host: r.host, from: 'resource' });
        } else if (r.kind === 'exec') {
          resources.push({ kind: 'exec', command: r.command, from: 'resource' });
          // A command too long to parse asks anyway; the text checks are kept to parsed sizes.
          const risk = o.sandboxed === false && r.command.length <= maxLength ? unsandboxedRisk(r.command) : undefined;
          if (risk !== undefined) {
            items.push({
              type: 'fixed',
              subject: `exec ${JSON.stringify(r.command)}`,
              effect: 'ask',
              rule: NO_SANDBOX_RULE,
              reason: `the command ${risk}, which the shell analysis cannot follow, and no OS sandbox enforces the rules here (install bubblewrap: apt-get install bubblewrap)`,
            });
          }
          // A command over this policy's own limit is not parsed (it asks), whoever could parse it.
          const analysis = call.analyzeCommand !== undefined && r.command.length <= maxLength ? await call.analyzeCommand(r.command) : await analyze(r.command);
          shell.push({ command: r.command, analysis });
          const derived = shellItems(analysis, r.cwd ?? cwd, home);
          items.push(...derived);
          for (const d of derived) {
            if (d.type === 'fs') resources.push({ kind: d.kind, path: d.given, paths: d.paths, from: 'shell' });
            if (d.type === 'exec') resources.push({ kind: 'exec', command: d.command.words, from: 'shell' });
            if (d.type === 'net') resources.push({ kind: 'net', host: d.host, from: 'shell' });
          }
        }
      }

      // The call as a whole goes last: among equal verdicts the first is reported, and a file or
      // command says more than "no rule names the tool".
      items.push(call.effects === 'unknown' ? { type: 'tool', unknownEffects: true } : { type: 'tool' });
      const ctx: JudgeContext = { tool: call.tool, rules, defaults, space, secrets: judgedSecrets, exec, ...(protect === undefined ? {} : { protect }) };
      const findings = liftDefaultAsks(
        items.map((item) => judge(item, ctx)),
        exactApproval(rules, call),
      );
      const worst = strictest(findings)!;
      const matched = findings.flatMap((f) => f.matched);
      return {
        effect: worst.effect,
        reason: worst.reason,
        rule: worst.rule,
        matched: matched.filter((m, i) => matched.findIndex((x) => x.rule === m.rule && x.subject === m.subject) === i),
        findings,
        resources,
        ...(shell.length > 0 ? { shell } : {}),
        hosts: [...new Set(resources.flatMap((r) => (r.kind === 'net' ? [r.host.toLowerCase()] : [])))],
      };
    },
  };
  return policy;
}

/** The user's config folder for git's global config: as given, else (for the real home) the environment's. */
function xdg(o: PolicyOptions): { xdgConfigHome?: string } {
  const value = o.xdgConfigHome ?? (o.home === undefined ? process.env.XDG_CONFIG_HOME : undefined);
  return value === undefined || value === '' ? {} : { xdgConfigHome: value };
}

/**
 * An allow rule with no wildcard that equals a whole command line (`bash(cp a.txt /tmp/x)`, as the
 * approval prompt's "always allow" saves it): a person has read exactly this command and said yes.
 * It answers the asks that came from defaults for that call (the file outside the workspace the
 * command writes); explicit ask and deny rules, and default denies, still stand.
 */
function exactApproval(rules: readonly CompiledRule[], call: PolicyCall): CompiledRule | undefined {
  const lines = call.resources.flatMap((r) => (r.kind === 'exec' ? [normalizeCommand(r.command)] : []));
  if (lines.length === 0) return undefined;
  return rules.find((r) => {
    if (r.effect !== 'allow') return false;
    const m = r.matcher;
    if (m.type === 'tool-command') return m.tool.test(call.tool) && isLiteral(m.spec) && lines.every((line) => m.command.test(line));
    if (m.type === 'exec') return isLiteral(m.spec) && lines.every((line) => m.command.test(line));
    return false;
  });
}

function liftDefaultAsks(findings: Finding[], rule: CompiledRule | undefined): Finding[] {
  if (rule === undefined) return findings;
  return findings.map((f) =>
    // The protection of Airlock's own files is a default no allow rule lifts, not even an exact one.
    f.effect === 'ask' && f.rule.startsWith('default:') && f.rule !== PROTECTED_RULE
      ? { ...f, effect: 'allow', rule: rule.id, reason: `allowed exactly as written by ${rule.surface}` }
      : f,
  );
}

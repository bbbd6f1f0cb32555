import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Effect, ProtectedPaths, SandboxProfile } from '@airlock/contract';
import type { FileQuery, FileVerdict } from './policy.js';
import type { CompiledRule, PathPattern } from './rules/types.js';
import { executableConfigFor } from './exec-config/export.js';
import { GIT_DIR_DANGER } from './exec-config/patterns.js';

export interface ProfileSources {
  roots: readonly string[];
  /** The secret defaults, compiled; hidden only while `secretRead` is deny. */
  secrets: readonly PathPattern[];
  secretsDenied: boolean;
  rules: readonly CompiledRule[];
  protectedPaths: ProtectedPaths | undefined;
  /** The same per-file judgment `ctx.access` gives (rules, defaults, protection, links). */
  checkFile(file: FileQuery): FileVerdict;
  /** What protected place (Airlock's files) a real path is or lies in, if any. */
  protectedAt(path: string): string | undefined;
  /** `defaultEffect.net`: what a host no rule covers gets. */
  netDefault: Effect;
  /** The verdict the rules give a connection to `host` (the same judgment a `net` resource gets). */
  judgeHost(host: string): Effect;
  /** Where the executable-config set (files other programs run as code) is looked up. */
  execConfig?: { home: string; xdgConfigHome?: string };
}

/**
 * What of a git folder runs code later: its config (core.fsmonitor, core.hooksPath, aliases …)
 * and hooks. The rest stays writable so `git add` and `git commit` work inside the sandbox.
 */
const GIT_DIR_CODE = ['config', 'config.worktree', 'hooks', 'commondir'];

/**
 * The OS sandbox's rules for a command in `cwd`, derived from the compiled policy and nothing
 * else: writable = the workspace roots; read-only = Airlock's protected places; hidden = the
 * literal folders and files of secret patterns and `fs.read` deny rules anchored at home, a root
 * or `/`; and, for what a walk of the roots finds, the policy's own per-file verdict.
 *
 * @example
 * sandboxProfile(sources, '/work').hidden // ['/home/u/.ssh', '/home/u/.aws/credentials', …] (those that exist)
 */
export function sandboxProfile(s: ProfileSources, cwd: string): SandboxProfile {
  const hidden = new Set<string>();
  const patterns = [...(s.secretsDenied ? s.secrets : []), ...s.rules.filter(isReadDeny).map((r) => (r.matcher as { path: PathPattern }).path)];
  for (const p of patterns) {
    if (p.anchor === 'anywhere') continue; // found by the walk of the roots (classify)
    for (const glob of p.globs) {
      const literal = literalPrefix(glob);
      // The sandbox mounts a /proc of its own (a new pid namespace): it shows only the sandbox's
      // processes, whose environments are already scrubbed. Hiding /proc would break /dev/stdin.
      if (literal === '/proc' || literal?.startsWith('/proc/')) continue;
      if (literal !== undefined && literal !== '/' && existsSync(literal)) hidden.add(literal);
    }
  }
  const readOnly = new Set<string>();
  for (const l of s.protectedPaths?.locations ?? []) {
    if (l.kind !== 'prefix') {
      if (existsSync(l.path)) readOnly.add(l.path);
      continue;
    }
    // A log and its rotations: every existing file whose path starts with the prefix.
    const dir = dirname(l.path);
    const stem = basename(l.path);
    try {
      for (const name of readdirSync(dir)) if (name.startsWith(stem)) readOnly.add(join(dir, name));
    } catch {
      // no folder yet: nothing to protect
    }
  }
  // Files other programs run as code (git hooks, shell rc files), from the same list path-policy judges writes by.
  if (s.execConfig !== undefined) {
    for (const p of executableConfigFor({ roots: s.roots, ...s.execConfig }).paths) {
      if (p.exists === false) continue;
      if (p.kind === 'folder' && p.danger === GIT_DIR_DANGER && isFolder(p.path)) for (const name of GIT_DIR_CODE) readOnly.add(join(p.path, name));
      else readOnly.add(p.path);
    }
  }
  // One profile serves one command's walk: folders' real paths found on the way are reused for
  // their entries (a folder may be swapped for a link between commands, so never longer).
  const realDirs = new Map<string, string>();
  return {
    writable: [...s.roots],
    readOnly: [...readOnly],
    hidden: [...hidden],
    classify(path) {
      if (s.checkFile({ kind: 'fs.read', path, tool: 'bash', cwd, realDirs, notLink: true }).effect === 'deny') return 'hidden';
      if (s.protectedAt(path) === undefined) return undefined;
      // Airlock's fixed places (logs, spill, state) are written by the host while commands run;
      // a settings file by name is written only by a person (or the host saving their answer).
      return inFixedPlace(path, s.protectedPaths) ? 'read-only' : 'guarded';
    },
    allowedHosts: [
      ...(s.netDefault === 'allow' ? ['*'] : []),
      ...new Set(s.rules.flatMap((r) => (r.effect === 'allow' && r.matcher.type === 'net' ? [r.matcher.spec.toLowerCase()] : []))),
    ],
    // The proxy's question is the policy's own: an ask is not an allow (a person was not asked).
    allowsHost: (host) => s.judgeHost(host) === 'allow',
  };
}

function inFixedPlace(path: string, protectedPaths: ProtectedPaths | undefined): boolean {
  return (protectedPaths?.locations ?? []).some((l) => (l.kind === 'prefix' ? path.startsWith(l.path) : path === l.path || (l.kind === 'folder' && path.startsWith(`${l.path}/`))));
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isReadDeny(rule: CompiledRule): boolean {
  return rule.effect === 'deny' && rule.matcher.type === 'fs' && rule.matcher.kind === 'fs.read';
}

/**
 * The part of a path glob before its first glob character, cut back to whole segments, with
 * escapes removed: `/home/u/.ssh/**` → `/home/u/.ssh`, `/w/a*.pem` → `/w`. Undefined when the
 * glob has no literal folder at all.
 */
export function literalPrefix(glob: string): string | undefined {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) {
      out += glob[++i];
      continue;
    }
    if ('*?[]{}'.includes(c)) {
      const cut = out.lastIndexOf('/');
      return cut <= 0 ? undefined : out.slice(0, cut);
    }
    out += c;
  }
  return out.replace(/\/+$/, '') || undefined;
}

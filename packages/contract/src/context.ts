import type { ToolUI } from './ask.js';
import type { Effect } from './hooks.js';
import type { Resource } from './resource.js';

/** Size limits for what enters the model's context. Whichever is hit first wins. */
export interface TruncationLimits {
  /** Lines kept at most (default 2,000). */
  maxLines: number;
  /** UTF-8 bytes kept at most (default 51,200 = 50 KiB). */
  maxBytes: number;
}

/** What a head or tail truncation kept, and of how much. Sizes are UTF-8 bytes. */
export interface TruncationResult {
  content: string;
  truncated: boolean;
  truncatedBy: 'lines' | 'bytes' | null;
  /** Lines in the input. A trailing newline does not start an extra line; "" has 0 lines. */
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  /** tail mode only: the kept text starts inside the last line, which alone exceeded maxBytes. */
  lastLinePartial: boolean;
  /** head mode only: the first line alone exceeds maxBytes, so nothing was kept. */
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

/** A rolling tail of a stream of any size, in bounded memory (bash output, logs). */
export interface TailAccumulator {
  /**
   * Feed raw bytes (decoded as UTF-8 across chunk boundaries) or text (UTF-8 encoded into the same
   * stream). The accumulator copies what it keeps, so the caller may reuse a byte chunk's memory.
   */
  push(chunk: Uint8Array | string): void;
  /**
   * The tail as it stands, truncated to the limits. Cheap enough to call on every update. An
   * incomplete character at the end is left out (its remaining bytes may still come).
   */
  snapshot(): TruncationResult;
  /** Flush the decoder and return the final tail. Further pushes are errors. */
  end(): TruncationResult;
  /**
   * Raw bytes pushed (less an incomplete character at the end, until `end()`). For valid UTF-8
   * this is the decoded size; invalid bytes count as themselves, not as the U+FFFD they show as.
   */
  readonly totalBytes: number;
  readonly totalLines: number;
  /** Raw size of the last line so far (its notice says how long an oversized last line is). */
  readonly lastLineBytes: number;
}

/** Truncation helpers bound to the context's limits, so extensions need no runtime kernel import. */
export interface TruncationService {
  head(text: string, limits?: Partial<TruncationLimits>): TruncationResult;
  tail(text: string, limits?: Partial<TruncationLimits>): TruncationResult;
  stream(limits?: Partial<TruncationLimits>): TailAccumulator;
}

/** A file in the session's spill folder, holding a full output that was cut for the model. */
export interface SpillInfo {
  path: string;
  /** Bytes written to the file. */
  bytes: number;
  /** Bytes offered. More than `bytes` when the session's spill budget forced a cap. */
  offeredBytes: number;
  /** The file holds less than was offered (the budget ran out); it keeps the beginning. */
  capped: boolean;
}

/** An open spill file for streamed output. Writes past the budget are counted and dropped. */
export interface SpillWriter {
  readonly path: string;
  write(chunk: Uint8Array | string): void;
  close(): Promise<SpillInfo>;
  /** Close and delete the file (the output turned out small enough to need no spill). */
  discard(): Promise<void>;
}

export interface SpillOptions {
  /** A short label that goes into the file name, e.g. the tool name. */
  name?: string;
  /** File extension without the dot (default "txt"). */
  ext?: string;
}

/** What a tool saw of a file when it last read or wrote it (the staleness check compares). */
export interface FileStamp {
  mtimeMs: number;
  size: number;
  /** A content hash, when the tool computed one. */
  hash?: string;
}

/**
 * The session's memory of which files the agent has seen, keyed by real path. It lives in the
 * kernel, not in a tool package: read, edit and write are separate extensions, and they must
 * share it for edit and write to refuse a file that changed since the model last saw it.
 */
export interface FileLedger {
  note(realPath: string, stamp: FileStamp): void;
  get(realPath: string): FileStamp | undefined;
  forget(realPath: string): void;
}

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** One file a tool is about to open (or write) inside a call that was already authorized. */
export interface AccessRequest {
  kind: 'fs.read' | 'fs.write';
  /** Absolute, or relative to the context's `cwd`. Checks resolve symlinks themselves. */
  path: string;
}

/** A policy's answer for one file. */
export interface AccessVerdict {
  effect: Effect;
  /** Worded for the model and for people, e.g. "reading /w/.env: it is a well-known secret file". */
  reason: string;
  /** The rule id or surface that decided, or `default:<name>`. */
  rule?: string;
}

/**
 * What a registered check is asked: the request, the tool that asks (bound by the kernel, so a
 * tool cannot speak for another) and the folder relative paths resolve against.
 */
export interface AccessQuery extends AccessRequest {
  tool: string;
  cwd: string;
  /**
   * Different for every call (a counter, never reused in the process). A check may cache what it
   * learns (a folder's real path) for one scope: the filesystem may change between calls.
   */
  scope: number;
}

/**
 * A check a policy extension registers (`api.registerAccessCheck`). It runs once per file of a
 * walk, so it must be synchronous and cheap. Returning undefined means "no opinion"; a throw
 * counts as a deny (fail closed).
 */
export type AccessCheck = (query: AccessQuery) => AccessVerdict | undefined;

/**
 * Per-file policy for tools that open many files in one call (grep over a tree): the call as a
 * whole was authorized, but each file it opens must pass the same read rules. Votes of all
 * registered checks combine deny > ask > allow; with none registered every file is allowed.
 *
 * @example
 * const v = ctx.access.check({ kind: 'fs.read', path: '/work/.env' });
 * if (v.effect !== 'allow') skipped.push({ path, reason: v.reason });
 */
export interface AccessService {
  /** False when no policy registered a check: every file is allowed, so a tool may skip judging. */
  readonly active: boolean;
  check(request: AccessRequest): AccessVerdict;
}

/**
 * Where the kernel gets each call's `ctx.access`: the host's combined access checks, bound to the
 * call's tool and cwd (`AccessChecks` in @airlock/toolkit is one).
 *
 * @example
 * const kernel = createKernel({ access: { serviceFor: (tool, cwd) => myChecks.serviceFor(tool, cwd) } });
 */
export interface AccessProvider {
  serviceFor(tool: string, cwd: string): AccessService;
}

/**
 * Everything a tool needs from the host, without importing it. Tools take runtime services from
 * here (never from a runtime import of @airlock/kernel), so there is exactly one mutation queue
 * and one spill store per kernel.
 */
export interface ToolContext {
  /** The working folder relative paths resolve against. */
  cwd: string;
  /** The agent session this call belongs to (spill folders and audit records use it). */
  sessionId: string;
  /** The id of the call being executed. */
  toolCallId: string;
  limits: TruncationLimits;
  truncate: TruncationService;
  /** Save a full output to the session's spill folder; the result's path goes in the notice. */
  spill(data: string | Uint8Array, options?: SpillOptions): Promise<SpillInfo>;
  /** Open a spill file for streamed output. */
  openSpill(options?: SpillOptions): SpillWriter;
  /**
   * Run `fn` while holding the lock for the real path of `path`: calls on the same file run one
   * at a time in call order, other files in parallel. edit and write must use it.
   */
  withFileMutation<T>(path: string, fn: () => Promise<T>, options?: { signal?: AbortSignal }): Promise<T>;
  /** Files this session has read or written, for staleness checks (see FileLedger). */
  files: FileLedger;
  ui: ToolUI;
  log: Logger;
  /** The environment the host allows tools to see. */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether the model can take images; tools may skip producing them when it cannot. */
  imageInput: boolean;
  /** Judge one file against the policy's rules before opening it (see AccessService). */
  access: AccessService;
  /** The OS sandbox every process a tool starts must run in; undefined when the host offers none. */
  sandbox?: SandboxService;
  /**
   * This call's file resources (`fs.read`, `fs.write`) as they were when the policy judged them,
   * in the order `resources()` listed them: each path with the device and inode of what was there
   * and of its folder. The kernel records them as `resources()` returns (and again when a batch
   * re-judges the call), so every tool has them without doing anything; a tool opens exactly what
   * was judged (tool-common's `openJudgedFile`) rather than whatever the name leads to by then.
   * Empty outside a kernel (a tool called directly) and for a tool without `resources()`.
   *
   * @example const judged = ctx.judged()[0] ?? judgedFileAt(realPath); // then openJudgedFile(judged, shown)
   */
  judged(): readonly JudgedFile[];
}

/** Device and inode: which file (or folder) a name led to. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** One file resource as the policy judged it (see ToolContext.judged). */
export interface JudgedFile {
  /** The real path the policy judged. */
  path: string;
  /** The file at `path` when it was judged; undefined when nothing was there. */
  file: FileIdentity | undefined;
  /** The folder holding `path` when it was judged; undefined when it did not exist. */
  folder: FileIdentity | undefined;
  /** `path` was a symlink leading nowhere when judged (its real path could not be resolved). */
  danglingLink?: boolean;
}

/** `sandbox.mode` in settings: `auto` runs sandboxed where it can, `required` refuses to run without it, `off` never sandboxes. */
export type SandboxMode = 'auto' | 'required' | 'off';

/** Whether commands run sandboxed, and if not, why and how to fix it. */
export interface SandboxStatus {
  readonly mode: SandboxMode;
  /** True when processes run inside the sandbox. */
  readonly active: boolean;
  /** Why it is not active (what is missing), when mode is not `off`. */
  readonly problem?: string;
  /** What to install or change, e.g. "apt-get install bubblewrap". */
  readonly fix?: string;
  /**
   * Whether a process inside can open Unix sockets (and so reach any socket file on the machine:
   * an SSH agent, a tmux server, docker.sock, D-Bus). `blocked` when the seccomp filter applies;
   * `reachable` when it cannot here (another architecture, a kernel without seccomp): in `auto`
   * mode the sandbox then runs weaker and `weaker` says why; `required` refuses instead.
   * Absent while the sandbox is not active.
   */
  readonly unixSockets?: 'blocked' | 'reachable';
  /** Why an active sandbox is weaker than Airlock's full profile, and what to do about it. */
  readonly weaker?: string;
}

/**
 * The file-system rules a sandboxed process runs under, from the policy (path-policy registers a
 * provider with `api.registerSandboxProfile`). Every path is absolute and real.
 *
 * @example
 * { writable: ['/work'], readOnly: ['/home/u/.config/airlock'], hidden: ['/home/u/.ssh'], classify: (p) => (p.endsWith('/.env') ? 'hidden' : undefined) }
 */
export interface SandboxProfile {
  /** Folders the process may write (the workspace roots). Everything else is read-only. */
  readonly writable: readonly string[];
  /** Places that stay read-only even inside a writable folder (Airlock's own files). */
  readonly readOnly: readonly string[];
  /** Places whose content the process may not read (secret files and folders), where they exist. */
  readonly hidden: readonly string[];
  /**
   * True for a provider that only adds read-only, hidden or guarded places (command-hooks' hook
   * scripts): combined with others, its `writable`, `allowedHosts` and `allowsHost` narrow
   * nothing; alone, its `writable` is used.
   */
  readonly addsOnly?: boolean;
  /**
   * For each entry found under a writable folder: whether it is secret (`hidden`), one of
   * Airlock's own files (`read-only`), a settings file only a person may create (`guarded`: kept
   * read-only, and if one appears while a command runs — a mount cannot cover what does not exist
   * yet — the sandbox moves it aside when the command ends), or none of these (undefined).
   * Synchronous and cheap. Only called for entries that are not symbolic links (mounting onto a
   * link would mount onto its target, which is judged where it lives), so it need not look.
   */
  classify(path: string): SandboxVerdict | undefined;
  /**
   * The `net(...)` allow rules as written (`registry.npmjs.org`, `*.example.com`; `*` when the
   * default lets every host through), for showing; the proxy asks `allowsHost`.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Whether the rules let any command reach `host` (an allow rule covers it and no ask or deny
   * rule does). Without it, only the literal names in `allowedHosts` are reachable.
   */
  allowsHost?(host: string): boolean;
}

/** What the sandbox does with one entry under a writable folder (see SandboxProfile.classify). */
export type SandboxVerdict = 'hidden' | 'read-only' | 'guarded';

/** Gives the sandbox the profile for commands started in `cwd`. */
export type SandboxProfileProvider = (query: { cwd: string }) => SandboxProfile;

/** Where and how one command runs in the sandbox. */
export interface SandboxWrapOptions {
  cwd: string;
  env: Record<string, string>;
  /** Hosts this command alone may reach, beyond those the rules allow (see VoteInput.hosts). */
  hosts?: readonly string[];
  /**
   * The call's signal: building the profile walks the workspace, and an abort (the call's time
   * limit, Ctrl-C) ends that walk; `wrap` then rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** A command line made to run inside the sandbox: spawn `file` with `args` and `env`. */
export interface SandboxedCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** The profile it runs under, in words (for logs and `policy explain`). */
  readonly summary: string;
  /**
   * Every process the command starts lives in a PID namespace that ends when the process started
   * from `file` exits (its init's death kills the rest): once that process has exited, none of
   * them is left, and a tool need not look for leftovers. Absent where that does not hold.
   */
  readonly processesEndWithIt?: true;
  /** A short hint for the model when the output shows the sandbox refused something, else undefined. */
  hint(output: string): string | undefined;
  /**
   * Call when the process has ended: what was opened for this command alone (the hosts its call
   * was allowed to reach) closes, and what the command created that it must not have (a guarded
   * settings file) is moved aside. Resolves to a note for the model when something was moved, or
   * could not be checked, else undefined; never rejects. Safe to call twice (the second call does
   * nothing). Asynchronous: finding what the command created walks the workspace again.
   */
  release(): Promise<string | undefined>;
}

/**
 * The OS sandbox (bubblewrap on Linux) a tool runs its processes in. Tools call `wrap` for every
 * process they start on the model's behalf and refuse to run when `status.mode` is `required`
 * and the sandbox is not active.
 *
 * @example
 * if (ctx.sandbox?.status.active) {
 *   const cmd = await ctx.sandbox.wrap(['bash', '-c', command], { cwd: ctx.cwd, env });
 *   spawn(cmd.file, cmd.args, { cwd: ctx.cwd, env: cmd.env });
 * }
 */
export interface SandboxService {
  readonly status: SandboxStatus;
  /**
   * The command line that runs `argv` sandboxed in `cwd`. Rejects (fail closed) when the profile
   * cannot be built. `ctx.sandbox` fills `hosts` itself with the hosts the call's policy votes
   * named, once the call was allowed; a host given here is reachable by this command only.
   */
  wrap(argv: readonly string[], options: SandboxWrapOptions): Promise<SandboxedCommand>;
}

export type { Resource };

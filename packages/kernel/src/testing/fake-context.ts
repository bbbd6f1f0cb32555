import type { AccessCheck, FileStamp, JudgedFile, Logger, SpillInfo, SpillOptions, SpillWriter, ToolContext, TruncationLimits } from '@airlock/contract';
import { AccessChecks } from '@airlock/toolkit';
import { FileMutationQueue } from '@airlock/toolkit';
import { NO_UI } from '../kernel.js';
import { createTruncationService } from '@airlock/toolkit';
import { resolveLimits } from '@airlock/toolkit';

export interface TestContextOptions {
  cwd?: string;
  limits?: Partial<TruncationLimits>;
  env?: Record<string, string | undefined>;
  ui?: ToolContext['ui'];
  imageInput?: boolean;
  /** Per-file checks `ctx.access` consults (default none: every file is allowed). */
  accessChecks?: readonly AccessCheck[];
  /** The tool name the access checks are told (default "test-tool"). */
  toolName?: string;
  /** What `ctx.judged()` returns: the files a policy judged for the call (default none, as outside a kernel). */
  judged?: readonly JudgedFile[];
}

/** A ToolContext plus what the test can inspect: spilled files and log lines. */
export interface TestContext extends ToolContext {
  /** Spilled outputs by their (virtual) path. */
  readonly spills: Map<string, string>;
  readonly logs: { level: keyof Logger; message: string; data?: unknown }[];
}

/**
 * A ToolContext for unit tests: a real mutation queue and truncation helpers, spills kept in
 * memory, a UI that answers no, and a logger that records.
 *
 * @example
 * const ctx = createTestContext({ cwd: tmp });
 * const result = await myTool.execute('id', { path: 'a.txt' }, undefined, undefined, ctx);
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  const limits = resolveLimits(options.limits);
  const spills = new Map<string, string>();
  const logs: TestContext['logs'] = [];
  const queue = new FileMutationQueue();
  const cwd = options.cwd ?? process.cwd();
  let counter = 0;
  const access = new AccessChecks();
  for (const [i, check] of (options.accessChecks ?? []).entries()) access.add(`test-check-${i + 1}`, check);
  const store = (data: string | Uint8Array, o: SpillOptions = {}): SpillInfo => {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    const path = `/spill/test/${++counter}-${o.name ?? 'output'}.${o.ext ?? 'txt'}`;
    spills.set(path, text);
    const bytes = Buffer.byteLength(text);
    return { path, bytes, offeredBytes: bytes, capped: false };
  };
  const log = (level: keyof Logger) => (message: string, data?: unknown) => void logs.push({ level, message, data });
  return {
    cwd,
    sessionId: 'test-session',
    toolCallId: 'test-call',
    limits,
    truncate: createTruncationService(limits),
    spill: async (data, o) => store(data, o),
    openSpill(o): SpillWriter {
      const chunks: string[] = [];
      const path = `/spill/test/${++counter}-${o?.name ?? 'stream'}.${o?.ext ?? 'txt'}`;
      spills.set(path, '');
      return {
        path,
        write: (chunk) => void chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
        close: async () => {
          const text = chunks.join('');
          spills.set(path, text);
          const bytes = Buffer.byteLength(text);
          return { path, bytes, offeredBytes: bytes, capped: false };
        },
        discard: async () => void spills.delete(path),
      };
    },
    withFileMutation: (path, fn, o) => queue.run(path, fn, { cwd, ...(o?.signal ? { signal: o.signal } : {}) }),
    files: (() => {
      const stamps = new Map<string, FileStamp>();
      return { note: (p: string, s: FileStamp) => void stamps.set(p, { ...s }), get: (p: string) => stamps.get(p), forget: (p: string) => void stamps.delete(p) };
    })(),
    ui: options.ui ?? NO_UI,
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    env: Object.freeze({ ...(options.env ?? {}) }),
    imageInput: options.imageInput ?? true,
    access: access.serviceFor(options.toolName ?? 'test-tool', cwd),
    judged: () => options.judged ?? [],
    spills,
    logs,
  };
}

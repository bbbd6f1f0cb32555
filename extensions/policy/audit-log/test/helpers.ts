import { createTestApi } from '@airlock/kernel/testing';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { createKernel, type Kernel } from '@airlock/kernel';
import { defineTool, type EventSink, type ExtensionAPI } from '@airlock/contract';
import { installAuditLog, lineHash, type AuditLogger, type AuditOptionsInput, type AuditRecord } from '../src/index.js';

const temps: string[] = [];

/** A fresh temp folder (its real path), removed by {@link removeTempDirs}. */
export function tempDir(prefix = 'airlock-audit-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

/** Remove every folder tempDir made (call from afterEach, after closing writers). */
export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The ExtensionAPI the host would give, on a kernel; listeners are kept in `listeners` (the tests fire them by hand). */
export function apiFor(kernel: Kernel, cwd: string, listeners: EventSink[]): ExtensionAPI {
  return createTestApi(kernel, { cwd, onEvent: (listener) => void listeners.push(listener) });
}

export const echo = defineTool({
  name: 'echo',
  label: 'Echo',
  description: 'Repeat the text back.',
  parameters: Type.Object({ text: Type.String() }, { additionalProperties: false }),
  async execute(_id, { text }) {
    if (text === 'throw') throw new Error('echo was told to throw');
    return { content: [{ type: 'text', text }] };
  },
});

export const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

const opened: AuditLogger[] = [];

/** Close every logger the tests opened (call from afterEach): no descriptor is left for the GC. */
export async function closeLoggers(): Promise<void> {
  await Promise.all(opened.splice(0).map((l) => l.close().catch(() => undefined)));
}

/** A kernel with the echo tool and the audit log installed, writing into a fresh folder. */
export function auditedKernel(options: AuditOptionsInput = {}, deps: { env?: Record<string, string> } = {}) {
  const dir = tempDir();
  const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') } });
  kernel.registry.register(echo, { source: 'sdk' });
  const listeners: EventSink[] = [];
  const path = join(dir, 'log', 'audit.jsonl');
  const logger: AuditLogger = installAuditLog(apiFor(kernel, dir, listeners), { path, fsync: 'never', ...options }, { env: deps.env ?? {}, home: dir, session: 'session-1' });
  opened.push(logger);
  // What the host's fan-out does: every kernel event reaches the extensions' listeners.
  const onEvent: EventSink = (e) => listeners.forEach((l) => l(e));
  return { dir, kernel, path, logger, onEvent };
}

export function track(logger: AuditLogger): AuditLogger {
  opened.push(logger);
  return logger;
}

export function readRecords(path: string): AuditRecord[] {
  return readLines(path).map((l) => JSON.parse(l) as AuditRecord);
}

export function readLines(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return text.split('\n').filter((l, i, all) => !(l === '' && i === all.length - 1));
}

/** The i-th of a run of plain result records, for tests that write many (chains, heads, locks). */
export const resultBody = (i: number) => ({
  type: 'result' as const,
  toolCallId: `c${i}`,
  tool: 'echo',
  outcome: 'ok' as const,
  isError: false,
  durationMs: 1,
  resultBytes: 2,
  resultSha256: lineHash(String(i)),
});

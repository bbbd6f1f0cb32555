import type { ToolCallEvent, ToolResultEvent } from '@airlock/contract';
import { describeDecision, describeResult } from './describe.js';
import type { AuditOptions } from './options.js';
import type { AuditRedactor } from './redact.js';
import { AuditWriter } from './writer.js';

export interface AuditLogger {
  readonly writer: AuditWriter;
  readonly session: string;
  /** tool_call observe. */
  decision(event: ToolCallEvent): Promise<void>;
  /** tool_result observe. */
  result(event: ToolResultEvent): Promise<void>;
  close(): Promise<void>;
}

/**
 * The per-session glue between the hooks and the writer. It remembers, per call, whether a
 * decision record was written, so that a call that never reached the tool_call hook (not found,
 * invalid) still gets its arguments recorded once, in its result record.
 */
export function createAuditLogger(
  options: AuditOptions & { path: string; headsDir: string; session: string; redactor: AuditRedactor; now?: () => Date; onWarning?: (message: string) => void },
): AuditLogger {
  const writer = new AuditWriter({
    path: options.path,
    session: options.session,
    fsync: options.fsync,
    fsyncIntervalMs: options.fsyncIntervalMs,
    maxBytes: options.maxBytes,
    maxFiles: options.maxFiles,
    headsDir: options.headsDir,
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const decided = new Set<string>();

  return {
    writer,
    session: options.session,
    async decision(event) {
      decided.add(event.toolCallId);
      await writer.append(describeDecision(event, options.redactor));
    },
    async result(event) {
      // Partials never reach observe; the guard keeps one record per result even if that changes.
      if (event.partial) return;
      const withArgs = !decided.delete(event.toolCallId);
      await writer.append(describeResult(event, options.redactor, { storeContent: options.storeContent, withArgs }));
    },
    close: () => writer.close(),
  };
}

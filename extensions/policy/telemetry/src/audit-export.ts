import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Context } from '@opentelemetry/api';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { lineHash, sha256Hex, canonicalJson } from '@airlock/audit-format';

/** Fields of an audit record that carry what the model sent or a tool returned. */
const CONTENT_FIELDS = ['args', 'provenance', 'resources', 'reason', 'content', 'votes'] as const;
/** OTel severity numbers (logs data model): INFO and WARN. */
const SEVERITY_INFO = 9;
const SEVERITY_WARN = 13;
/** Read at most this much of the log per call: a huge backlog is not a reason to stall a call. */
const MAX_READ = 4 * 1024 * 1024;

/**
 * The record as exported: every field of the JSONL record; without content export, the fields
 * that may hold arguments, results or reasons are replaced by the SHA-256 of their canonical
 * JSON (`{"sha256": …}`), so a SIEM can still match them against the local log.
 */
export function exportedBody(record: Record<string, unknown>, exportContent: boolean): Record<string, unknown> {
  if (exportContent) return record;
  const out: Record<string, unknown> = { ...record };
  for (const field of CONTENT_FIELDS) {
    if (field in out) out[field] = { sha256: sha256Hex(canonicalJson(out[field])) };
  }
  return out;
}

/**
 * Audit records as OpenTelemetry log records, read from the hash-chained JSONL log itself (the
 * source of truth): shortly after calls end (batched, off the calls' path), the lines the audit
 * log appended are emitted, each joined to its call's trace by toolCallId. Each carries the record's fields, its `seq` and `prev`, and the SHA-256 of its own
 * line (`airlock.audit.line_sha256`, what the next record's `prev` holds), so a collector's copy
 * can be checked against the chain.
 *
 * @example
 * const audit = createAuditExport('/home/u/.local/state/airlock/audit/p/audit.jsonl', logger, false);
 * audit.afterCall('call-1', spanContext); // read ~200 ms later
 * audit.close();                          // at shutdown: everything left
 */
export function createAuditExport(path: string, logger: OtelLogger, exportContent: boolean, options: { delayMs?: number } = {}) {
  const delayMs = options.delayMs ?? 200;
  // Only what this run appends: the log's earlier lines were exported by the runs that wrote them.
  let file = openLog(path);
  let offset = file === undefined ? 0 : sizeOfFd(file.fd);
  /** Ended calls' trace contexts, until their records are read. */
  const contexts = new Map<string, Context>();
  let timer: NodeJS.Timeout | undefined;

  function emit(line: string): void {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // a torn line: the audit log writes a recovery record for it, exported in turn
    }
    const type = String(record['type'] ?? 'unknown');
    const attributes: Record<string, string | number | boolean> = {
      'airlock.audit.type': type,
      'airlock.audit.line_sha256': lineHash(line),
    };
    const copy: Array<[string, string]> = [
      ['seq', 'airlock.audit.seq'],
      ['prev', 'airlock.audit.prev'],
      ['session', 'airlock.session.id'],
      ['tool', 'gen_ai.tool.name'],
      ['toolCallId', 'gen_ai.tool.call.id'],
      ['decision', 'airlock.decision'],
      ['outcome', 'airlock.outcome'],
    ];
    for (const [field, name] of copy) {
      const value = record[field];
      if (typeof value === 'string' || typeof value === 'number') attributes[name] = value;
    }
    const source = record['decision_source'] as Record<string, unknown> | undefined;
    if (typeof source?.['rule'] === 'string') attributes['airlock.decision.rule'] = source['rule'];
    if (typeof source?.['handler'] === 'string') attributes['airlock.decision.handler'] = source['handler'];
    const context = typeof record['toolCallId'] === 'string' ? contexts.get(record['toolCallId']) : undefined;
    if (type === 'result' && typeof record['toolCallId'] === 'string') contexts.delete(record['toolCallId']);
    logger.emit({
      eventName: `airlock.audit.${type}`,
      severityNumber: record['decision'] === 'deny' ? SEVERITY_WARN : SEVERITY_INFO,
      severityText: record['decision'] === 'deny' ? 'WARN' : 'INFO',
      body: JSON.stringify(exportedBody(record, exportContent)),
      attributes,
      ...(context === undefined ? {} : { context }),
    });
  }

  /** Emit the complete lines of the open file from `offset` to its end. */
  function readOpen(): void {
    if (file === undefined) return;
    const size = sizeOfFd(file.fd);
    if (size < offset) offset = 0; // emptied in place
    while (offset < size) {
      const length = Math.min(size - offset, MAX_READ);
      const bytes = Buffer.alloc(length);
      const got = readSync(file.fd, bytes, 0, length, offset);
      const end = bytes.subarray(0, got).lastIndexOf(0x0a);
      if (end === -1) return; // a line still being written
      offset += end + 1;
      for (const line of bytes.subarray(0, end).toString('utf8').split('\n')) if (line !== '') emit(line);
    }
  }

  function drainNow(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    // Calls that ended before this read have their records on disk by now (the audit log writes
    // them in the observe phases, before the call ends): their contexts are not needed after it.
    const ended = [...contexts.keys()];
    try {
      readOpen();
      // Rotated or replaced: the old file was read to its end above (the descriptor still holds
      // it); go on with the new one from its start.
      const now = statIno(path);
      if (now !== undefined && now !== file?.ino) {
        if (file !== undefined) closeSync(file.fd);
        file = openLog(path);
        offset = 0;
        readOpen();
      }
    } catch {
      // The log is the audit log's to keep; a read that fails here loses an export, not a record.
    }
    for (const id of ended) contexts.delete(id);
  }

  return {
    /**
     * A call ended: its records are read a little later, off the call's path, and joined to
     * `context` (the call's span) by their toolCallId.
     */
    afterCall(toolCallId: string, context: Context): void {
      contexts.set(toolCallId, context);
      if (timer === undefined) {
        timer = setTimeout(drainNow, delayMs);
        timer.unref();
      }
    },
    /** Emit everything appended so far (at shutdown). Never throws. */
    drain(): void {
      drainNow();
    },
    close(): void {
      drainNow();
      if (file !== undefined) closeSync(file.fd);
      file = undefined;
      contexts.clear();
    },
  };
}

function openLog(path: string): { fd: number; ino: number } | undefined {
  try {
    const fd = openSync(path, 'r');
    return { fd, ino: fstatSync(fd).ino };
  } catch {
    return undefined;
  }
}

function statIno(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

function sizeOfFd(fd: number): number {
  return fstatSync(fd).size;
}

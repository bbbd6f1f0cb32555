import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tracedKernel } from './helpers.js';

const opened: ReturnType<typeof tracedKernel>[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.closeAudit();
});

describe('audit records as OpenTelemetry log records', () => {
  it('each JSONL record becomes a log record with its seq, prev and own line hash, in the call\'s trace', async () => {
    const t = tracedKernel({ audit: true });
    opened.push(t);
    await t.kernel.executeToolCall({ id: 'call-1', name: 'echo', arguments: { text: 'private-words' } });
    await t.kernel.executeToolCall({ id: 'call-2', name: 'echo', arguments: { text: 'more-words' } });
    // (the in-memory exporter forgets its spans at shutdown)
    const traceId = t.spans().find((s) => s.attributes['gen_ai.tool.call.id'] === 'call-1')!.spanContext().traceId;
    // Records are read shortly after the calls, off their path; stopping reads what is left.
    await t.stop();
    const lines = readFileSync(t.auditPath, 'utf8').trim().split('\n');
    const logs = t.logs();
    expect(logs.map((l) => l.eventName)).toEqual(['airlock.audit.decision', 'airlock.audit.result', 'airlock.audit.decision', 'airlock.audit.result']);
    expect(lines).toHaveLength(4);
    for (const [i, log] of logs.entries()) {
      const record = JSON.parse(lines[i]!) as Record<string, unknown>;
      expect(log.attributes).toMatchObject({
        'airlock.audit.seq': record['seq'],
        'airlock.audit.prev': record['prev'],
        'airlock.audit.line_sha256': createHash('sha256').update(lines[i]!).digest('hex'),
        'gen_ai.tool.call.id': record['toolCallId'],
      });
      // The chain holds across the exported copies: a record's prev is the previous line's hash.
      if (i > 0) expect(log.attributes['airlock.audit.prev']).toBe(logs[i - 1]!.attributes['airlock.audit.line_sha256']);
      // Every field is there; content fields only by hash.
      const body = JSON.parse(String(log.body)) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(Object.keys(record).sort());
      if ('args' in record) expect(body['args']).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    expect(JSON.stringify(logs.map((l) => [l.body, l.attributes]))).not.toContain('private-words');
    // Joined to the call's span.
    expect(logs[0]!.spanContext?.traceId).toBe(traceId);
    expect(logs[2]!.spanContext?.traceId).not.toBe(traceId);
  });

  it('with content export the body is the record exactly as in the local log', async () => {
    const t = tracedKernel({ audit: true, exportContent: true });
    opened.push(t);
    await t.kernel.executeToolCall({ id: 'call-1', name: 'echo', arguments: { text: 'shown-words' } });
    // Without a stop: the batched read happens on its own within a moment.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const lines = readFileSync(t.auditPath, 'utf8').trim().split('\n');
    expect(t.logs().map((l) => JSON.parse(String(l.body)))).toEqual(lines.map((l) => JSON.parse(l)));
  });
});

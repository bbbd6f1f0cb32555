import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { type EventSink } from '@airlock/contract';
import { installAuditLog, verifyAuditLog } from '../src/index.js';
import { apiFor, closeLoggers, echo, GITHUB_TOKEN, readLines, removeTempDirs, tempDir, track } from './helpers.js';

/**
 * The record format is a contract with every log already written: `airlock audit verify` of an
 * old log and the readers of a new one depend on it. This fixed call sequence (every way a call
 * ends, raw arguments that never validated, a secret among them, a transform) was recorded with
 * the audit log that joined raw arguments through a side Map of tool_execution_start events; the
 * log written now, from the result event's own rawArgs, must be the same bytes. Only what a run
 * cannot repeat is set aside: the duration, and so the hash chain (checked by verify instead).
 */
const FIXTURE = new URL('./fixtures/call-sequence.jsonl', import.meta.url);

afterEach(async () => {
  await closeLoggers();
  removeTempDirs();
});

async function recordSequence(): Promise<{ path: string; dir: string }> {
  const dir = tempDir();
  const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') } });
  kernel.registry.register(echo, { source: 'sdk' });
  const listeners: EventSink[] = [];
  const path = join(dir, 'log', 'audit.jsonl');
  track(
    installAuditLog(apiFor(kernel, dir, listeners), { path, fsync: 'never' }, {
      env: { GITHUB_TOKEN },
      home: dir,
      session: 'session-fixed',
      now: () => new Date('2026-12-01T00:00:00.000Z'),
    }),
  );
  kernel.on('tool_call', (e) => (e.args.text === 'deny me' ? { effect: 'deny', reason: 'told to' } : undefined), { name: 'fixture/deny', phase: 'authorize' });
  kernel.on('tool_call', (e) => (e.args.text === 'shout' ? { ...e.args, text: 'SHOUT' } : undefined), { name: 'fixture/shout', phase: 'transform' });
  // What the host's fan-out did for the audit log that listened to events (harmless now).
  const onEvent: EventSink = (e) => listeners.forEach((l) => l(e));
  await kernel.executeBatch(
    [
      { id: 'ok', name: 'echo', arguments: { text: 'hello' } },
      { id: 'invalid', name: 'echo', arguments: { text: 42, token: GITHUB_TOKEN } },
      { id: 'missing', name: 'nope', arguments: { path: '/etc/passwd' } },
    ],
    { onEvent, executionMode: 'sequential' },
  );
  for (const call of [
    { id: 'denied', name: 'echo', arguments: { text: 'deny me' } },
    { id: 'shouted', name: 'echo', arguments: { text: 'shout' } },
    { id: 'threw', name: 'echo', arguments: { text: 'throw' } },
    { id: 'not-json', name: 'echo', arguments: '{"text": ' as unknown as Record<string, unknown> },
  ]) {
    await kernel.executeToolCall(call, { onEvent });
  }
  await kernel.dispose();
  return { path, dir };
}

/** Each line as written, with the duration zeroed and the chain link dropped (they differ per run). */
function comparable(path: string): string {
  return readLines(path)
    .map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if ('durationMs' in record) record.durationMs = 0;
      delete record.prev;
      return JSON.stringify(record);
    })
    .join('\n');
}

describe('the audit record format stays the same', () => {
  it('a fixed call sequence writes the recorded bytes, and the chain verifies', async () => {
    const { path } = await recordSequence();
    const written = comparable(path);
    expect(written).toBe(readFileSync(FIXTURE, 'utf8').trimEnd());
    // The raw arguments of the calls that never validated are there, with the secret redacted.
    expect(written).toContain('"toolCallId":"invalid"');
    expect(written).not.toContain(GITHUB_TOKEN);
    const [result] = verifyAuditLog(path);
    expect(result).toMatchObject({ kind: 'report', report: { ok: true, records: readLines(path).length } });
  });

  it('a call that never validated has its raw arguments recorded without any event sink (the kernel used directly)', async () => {
    const dir = tempDir();
    const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') } });
    kernel.registry.register(echo, { source: 'sdk' });
    const path = join(dir, 'audit.jsonl');
    track(installAuditLog(apiFor(kernel, dir, []), { path, fsync: 'never' }, { env: {}, home: dir }));
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { nope: 7 } });
    await kernel.executeBatch([
      { id: 'd', name: 'echo', arguments: { text: 'first' } },
      { id: 'e', name: 'echo', arguments: { wrong: 'second' } },
    ]);
    const results = readLines(path).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.type === 'result');
    const byId = Object.fromEntries(results.map((r) => [r.toolCallId, [r.outcome, r.args]]));
    // The valid call's arguments are in its decision record, so its result record carries none.
    expect(byId).toEqual({ c: ['invalid', { nope: 7 }], d: ['ok', undefined], e: ['invalid', { wrong: 'second' }] });
    await kernel.dispose();
  });
});

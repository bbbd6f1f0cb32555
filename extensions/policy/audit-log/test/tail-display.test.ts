import { describe, expect, it } from 'vitest';
import { formatRecord } from '../src/tail.js';
import type { AuditRecord } from '../src/record.js';
import { around, HOSTILE_SAMPLES, rawHostile, visibleForm } from '@airlock/kernel/testing';

/** Issue 19 §3: `airlock audit tail` prints tool names and ids the model chose, and a log file may have been edited. */
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

describe('formatRecord shows every field escaped', () => {
  it('a decision whose tool name, call id, rule and reason carry escapes', () => {
    const record = {
      type: 'decision',
      seq: 3,
      time: '2026-12-01T20:00:00.000Z',
      tool: 're\u001b[8mad\u202E',
      toolCallId: `c\u001b]52;c;ZXZpbA==\u0007${'\n'.repeat(60)}1`,
      decision: 'deny',
      vote: 'deny',
      decision_source: { kind: 'rule', rule: 'deny-\u2066x', handler: 'path-policy\u200B' },
    } as unknown as AuditRecord;
    const line = formatRecord(record, '');
    expect(line).toBe(
      '#3 2026-12-01T20:00:00.000Z decision re\\u001B[8mad\\u202E c\\u001B]52;c;ZXZpbA==\\u0007⟪60 newlines⟫1 deny · rule deny-\\u2066x (path-policy\\u200B)',
    );
    expect(line).not.toMatch(HIDDEN);
  });

  it('fields of the wrong kind in an edited log, and a line that is not a record', () => {
    const edited = { type: 'result', seq: '\u001b[2J', time: 1, tool: { x: '\u202E' }, toolCallId: null, outcome: 'ok', durationMs: 1, resultBytes: 2, resultSha256: 7 } as unknown as AuditRecord;
    const line = formatRecord(edited, '');
    expect(line).not.toMatch(HIDDEN);
    expect(line).toContain('\\u001B[2J');
    expect(formatRecord(undefined, 'junk\u001b]52;c;eA==\u0007')).toBe('(not a record) junk\\u001B]52;c;eA==\\u0007');
  });
});

describe('formatRecord: each hostile character and sequence in each field (issue 24 §6)', () => {
  const decision = (field: string, text: string) =>
    ({
      type: 'decision',
      seq: 1,
      time: '2026-12-01T20:00:00.000Z',
      tool: 'read',
      toolCallId: 'c1',
      decision: 'deny',
      vote: 'ask',
      decision_source: { kind: 'rule', rule: 'r', handler: 'h' },
      ...(field.startsWith('source.') ? { decision_source: { kind: 'rule', rule: 'r', handler: 'h', [field.slice(7)]: text } } : { [field]: text }),
    }) as unknown as AuditRecord;
  const result = (field: string, text: string) =>
    ({ type: 'result', seq: 2, time: 't', tool: 'read', toolCallId: 'c1', outcome: 'ok', durationMs: 1, resultBytes: 2, resultSha256: 'abc', [field]: text }) as unknown as AuditRecord;

  it('every field of a decision and of a result is one line with the visible escape', () => {
    const cases: [string, (text: string) => AuditRecord][] = [
      ...['tool', 'toolCallId', 'decision', 'time', 'source.rule', 'source.handler'].map((f): [string, (t: string) => AuditRecord] => [`decision ${f}`, (t) => decision(f, t)]),
      ...['tool', 'toolCallId', 'outcome', 'durationMs', 'resultBytes'].map((f): [string, (t: string) => AuditRecord] => [`result ${f}`, (t) => result(f, t)]),
    ];
    for (const [what, make] of cases) {
      for (const sample of HOSTILE_SAMPLES) {
        const line = formatRecord(make(around(sample)), '');
        expect(rawHostile(line), `${sample.name} in ${what}: ${line}`).toEqual([]);
        expect(line, `${sample.name} in ${what}`).toContain(visibleForm(around(sample)));
      }
    }
    for (const sample of HOSTILE_SAMPLES) expect(rawHostile(formatRecord(undefined, around(sample))), sample.name).toEqual([]);
  });
});

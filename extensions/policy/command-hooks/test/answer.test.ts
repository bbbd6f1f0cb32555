import { describe, expect, it } from 'vitest';
import { readAnswer } from '../src/index.js';
import { scaledMs } from '@airlock/kernel/testing';

const run = (exitCode: number | null, stdout = '', stderr = '', problem?: string) => ({ exitCode, stdout, stderr, timedOut: false, sandboxed: false, ...(problem === undefined ? {} : { problem }) });

describe('reading a hook\'s exit code and output the way Claude Code does', () => {
  it('exit 0 with no output, or with text that is not JSON, is no objection', () => {
    expect(readAnswer(run(0), 'PreToolUse')).toEqual({ kind: 'answer' });
    expect(readAnswer(run(0, 'checked 3 rules\n'), 'PreToolUse')).toEqual({ kind: 'answer' });
    expect(readAnswer(run(0, '{not json'), 'PreToolUse')).toEqual({ kind: 'answer' });
  });

  it('exit 2 blocks with stderr, or with the JSON reason when there is one', () => {
    expect(readAnswer(run(2, '', 'no\n'), 'PreToolUse')).toEqual({ kind: 'answer', blocking: 'no' });
    expect(readAnswer(run(2, '{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"r"}}', 'e'), 'PreToolUse')).toMatchObject({ kind: 'answer', blocking: 'r' });
    expect(readAnswer(run(2), 'PreToolUse')).toMatchObject({ blocking: expect.stringContaining('gave no reason') });
  });

  it('another exit code is a failure, unless stdout held valid JSON, which then decides', () => {
    expect(readAnswer(run(1, '', 'Traceback\nValueError: x\n'), 'PreToolUse')).toEqual({ kind: 'failure', problem: 'it exited with code 1: ValueError: x' });
    expect(readAnswer(run(1, '{"decision":"block","reason":"r"}'), 'PreToolUse')).toEqual({ kind: 'answer', output: { decision: 'block', reason: 'r' } });
  });

  it('every top-level decision word public scripts print is an answer, and an unknown one is a failure naming the words', () => {
    for (const word of ['ask', 'allow', 'deny', 'defer', 'approve', 'block']) {
      expect(readAnswer(run(0, JSON.stringify({ decision: word, reason: 'r' })), 'PreToolUse')).toEqual({ kind: 'answer', output: { decision: word, reason: 'r' } });
    }
    const unknown = readAnswer(run(0, '{"decision":"maybe"}'), 'PreToolUse');
    expect(unknown).toMatchObject({ kind: 'failure', problem: expect.stringContaining('"decision": "maybe"') });
    expect(unknown).toMatchObject({ problem: expect.stringContaining('"ask"') });
  });

  it('JSON of the wrong shape or for another event is a failure, not an answer', () => {
    expect(readAnswer(run(0, '{"hookSpecificOutput":{"permissionDecision":"yes"}}'), 'PreToolUse')).toMatchObject({ kind: 'failure', problem: expect.stringContaining("Claude Code's shape") });
    expect(readAnswer(run(0, '{"hookSpecificOutput":{"hookEventName":"PostToolUse"}}'), 'PreToolUse')).toMatchObject({ kind: 'failure', problem: 'its JSON output is for PostToolUse, not PreToolUse' });
  });

  it('a hook that could not start or was stopped is a failure naming why', () => {
    expect(readAnswer(run(null, '', '', 'it did not finish within 1 s and was stopped'), 'PreToolUse')).toEqual({ kind: 'failure', problem: 'it did not finish within 1 s and was stopped' });
  });
});

describe('running a hook process', () => {
  it('answers soon after the hook exits even when a process that left its group holds its stdout open', async () => {
    const { runHook } = await import('../src/index.js');
    const started = Date.now();
    const run = await runHook({ cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, 'setsid sleep 5 & echo \'{"decision":"block","reason":"r"}\'; exit 0', '{}', 20_000);
    expect(Date.now() - started).toBeLessThan(scaledMs(3_000, { below: 5_000 }));
    expect(run).toMatchObject({ exitCode: 0, stdout: expect.stringContaining('"block"'), timedOut: false });
  });

  it('keeps at most 1 MiB of stdout', async () => {
    const { runHook, OUTPUT_CAP_BYTES } = await import('../src/index.js');
    const run = await runHook({ cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, 'head -c 3000000 /dev/zero | tr "\\\\0" a', '{}', 20_000);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.length).toBe(OUTPUT_CAP_BYTES);
  });
});

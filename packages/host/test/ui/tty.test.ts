import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DialogQueue } from '../../src/ui/dialog-queue.js';
import { createTtyUI } from '../../src/ui/tty.js';
import { flush } from './fake-backend.js';
import { fakeTerminal } from './fake-terminal.js';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import type { AskRequest } from '@airlock/contract';

const run = promisify(execFile);
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const DOWN = '\u001b[B';
const ENTER = '\r';

type Step = { expect: string } | { send: string } | { sleep: number };
interface Terminal {
  icanon: boolean;
  echo: boolean;
  isRaw: boolean | null;
}
interface Outcome {
  exitCode: number | null;
  /** Everything the terminal was sent, as sent. */
  raw: string;
  signal: number | null;
  transcript: string;
  error: string | null;
  result: { interactive: boolean; steps: { name: string; answer: unknown; terminal: Terminal }[] };
}

/**
 * Runs a scenario of fixtures/tty-dialogs.mjs under a real pseudo-terminal (fixtures/pty-run.py,
 * Python's pty module), typing `steps` into it like a person would.
 */
async function inPty(scenario: string, steps: Step[]): Promise<Outcome> {
  const resultFile = join(makeTempDir('airlock-tty-'), 'result.json');
  const spec = { argv: [process.execPath, 'tty-dialogs.mjs', resultFile, scenario], cwd: fixtures, steps, timeout: 15 };
  const { stdout } = await run('python3', [join(fixtures, 'pty-run.py'), JSON.stringify(spec)], { timeout: scaledMs(60_000) });
  const outcome = JSON.parse(stdout) as Omit<Outcome, 'result'>;
  if (outcome.error) throw new Error(`${outcome.error}\n--- transcript ---\n${outcome.transcript}`);
  // The terminal turns every newline into CR LF (onlcr); compare text with plain newlines.
  const transcript = outcome.transcript.replace(/\r\n/g, '\n');
  return { ...outcome, transcript, result: JSON.parse(readFileSync(resultFile, 'utf8')) as Outcome['result'] };
}

/** Waits for the fixture's marker that a dialog has settled, so keys go to the next one. */
const settled = (name: string): Step => ({ expect: `\\[done ${name}\\]` });

const COOKED: Terminal = { icanon: true, echo: true, isRaw: false };

// Generous: each scenario starts Node under a pty; a stuck prompt fails inside pty-run.py's own 15 s wait.
describe('createTtyUI in a real pseudo-terminal', { timeout: scaledMs(60_000) }, () => {
  it('escapes what an extension hands a dialog: no OSC, hidden text, bidi or zero-width character reaches the terminal', async () => {
    const { exitCode, result, transcript, raw } = await inPty('untrusted', [
      { expect: 'Run \\\\u001B\\]52;c;ZXZpbA==\\\\u0007x\\\\u202E\\?' },
      { expect: 'path \\\\u001B\\[8mhidden\\\\u200B' },
      { send: 'n' },
      { send: ENTER },
      settled('confirm-raw'),
      { expect: 'Pick \\\\u2066' },
      { expect: 'a\\\\u001B\\[2Jb' },
      { send: ENTER },
      settled('choice-raw'),
    ]);
    expect(exitCode, transcript).toBe(0);
    expect(result.steps.map((s) => [s.name, s.answer])).toEqual([
      ['confirm-raw', { id: 'no' }],
      ['choice-raw', { id: 'raw' }],
    ]);
    expect(raw).not.toMatch(/[\u0007\u200b\u202e\u2066]|\u001b\]|\u001b\[8m|\u001b\[2J/);
  });

  it('answers confirm with y, a choice with arrow down + enter (by its id), text by typing; Enter alone declines', async () => {
    const { exitCode, result, transcript } = await inPty('answers', [
      { expect: 'Delete build\\?' },
      { send: 'y' },
      { expect: '\\(y/N\\) y' },
      { send: ENTER },
      settled('confirm-y'),
      { expect: '❯ red' },
      { send: DOWN },
      { expect: '❯ green' },
      { send: ENTER },
      settled('choice-down'),
      { expect: 'Your name e\\.g\\. Ada' },
      { send: 'Ada Lovelace' },
      { expect: 'Lovelace' },
      { send: ENTER },
      settled('text-typed'),
      { expect: 'Proceed\\?' },
      { send: ENTER },
      settled('confirm-enter'),
    ]);
    expect(exitCode).toBe(0);
    expect(result.interactive).toBe(true);
    expect(result.steps.map((s) => [s.name, s.answer])).toEqual([
      ['confirm-y', { id: 'yes' }],
      ['choice-down', { id: 'GREEN' }],
      ['text-typed', { text: 'Ada Lovelace' }],
      ['confirm-enter', { id: 'no' }],
    ]);
    // After every dialog the terminal is back in cooked mode: line editing and echo on.
    for (const step of result.steps) expect(step.terminal).toEqual(COOKED);
    // The message goes under the title; the placeholder is a hint, not the answer.
    expect(transcript).toContain('Delete build?\nThe bash tool wants to run rm -rf build');
    expect(transcript).toContain('✔ Your name Ada Lovelace');
  });

  it('Ctrl-C and Ctrl-D end that dialog only, as cancelled, and the process carries on', async () => {
    const { exitCode, signal, result } = await inPty('keys', [
      { expect: 'Allow A\\?' },
      { send: CTRL_C },
      settled('confirm-ctrl-c'),
      { expect: 'Pick B' },
      { send: CTRL_C },
      settled('choice-ctrl-c'),
      { expect: 'Type C' },
      { send: 'abc' },
      { expect: 'abc' },
      { send: CTRL_C },
      settled('text-ctrl-c'),
      { expect: 'Type D' },
      { send: CTRL_D },
      settled('text-ctrl-d'),
      { expect: 'Still there\\?' },
      { send: `y${ENTER}` },
      settled('confirm-after'),
    ]);
    expect([exitCode, signal]).toEqual([0, null]);
    // Each says why there was no answer: a person dismissed it (not a time-out).
    expect(result.steps.map((s) => [s.name, s.answer])).toEqual([
      ['confirm-ctrl-c', { noAnswer: { kind: 'cancelled', detail: 'Ctrl-C' } }],
      ['choice-ctrl-c', { noAnswer: { kind: 'cancelled', detail: 'Ctrl-C' } }],
      ['text-ctrl-c', { noAnswer: { kind: 'cancelled', detail: 'Ctrl-C' } }],
      ['text-ctrl-d', { noAnswer: { kind: 'cancelled', detail: 'Ctrl-D' } }],
      ['confirm-after', { id: 'yes' }],
    ]);
    for (const step of result.steps) expect(step.terminal).toEqual(COOKED);
  });

  it('shows the seconds left, ends with no answer on timeout and abort, and leaves the terminal cooked', async () => {
    const { exitCode, result, transcript } = await inPty('timeouts', [
      { expect: 'Approve slowly\\? \\(answers No in 2s\\)' },
      settled('confirm-timeout'),
      { expect: 'Pick fast' },
      settled('choice-abort'),
      { expect: 'Say ok' },
      { send: `ok${ENTER}` },
      settled('text-after'),
    ]);
    expect(exitCode).toBe(0);
    expect(result.steps.map((s) => [s.name, s.answer])).toEqual([
      ['confirm-timeout', { noAnswer: { kind: 'timeout', timeoutMs: 1500 } }],
      ['choice-abort', { noAnswer: { kind: 'aborted' } }],
      ['text-after', { text: 'ok' }],
    ]);
    // Checked the moment the caller got its "no": a cancelled prompt has already restored the terminal.
    for (const step of result.steps) expect(step.terminal).toEqual(COOKED);
    expect(transcript).not.toContain('✔ Approve slowly');
  });

  it('queues dialogs asked for in parallel: each comes up only after the one before it is answered (Pi #3274)', async () => {
    const { exitCode, result, transcript } = await inPty('parallel', [
      { expect: 'First\\?' },
      { sleep: 0.3 }, // room for a wrongly drawn second prompt to show up
      { send: `y${ENTER}` },
      { expect: '✔ First\\? Yes' },
      { expect: 'Second\\?' },
      { send: DOWN },
      { expect: '❯ b' },
      { send: ENTER },
      { expect: '✔ Second\\? b' },
      { expect: 'Third\\?' },
      { send: `three${ENTER}` },
      { expect: '✔ Third\\? three' },
    ]);
    expect(exitCode).toBe(0);
    expect(result.steps[0]!.answer).toEqual({ answers: [{ id: 'yes' }, { id: 'B' }, { text: 'three' }], order: ['first', 'second', 'third'] });
    expect(result.steps[0]!.terminal).toEqual(COOKED);
    // Never overlapping: no prompt is drawn before the previous one has its answer.
    expect(transcript.indexOf('Second?')).toBeGreaterThan(transcript.indexOf('✔ First? Yes'));
    expect(transcript.indexOf('Third?')).toBeGreaterThan(transcript.indexOf('✔ Second? b'));
  });
});

describe('createTtyUI without a terminal', { timeout: scaledMs(30_000) }, () => {
  it('is not interactive when stdin is not a TTY, ends every ask as unavailable at once and draws nothing', async () => {
    const dir = makeTempDir('airlock-tty-');
    const resultFile = join(dir, 'result.json');
    const child = execFile(process.execPath, ['tty-dialogs.mjs', resultFile, 'not-a-tty'], { cwd: fixtures, timeout: 30_000 });
    child.stdin!.end('{"these": "are the call arguments"}\n');
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as Outcome['result'];
    expect(result.interactive).toBe(false);
    const nobody = { noAnswer: { kind: 'unavailable', detail: 'no terminal to show it in' } };
    expect(result.steps.map((s) => s.answer)).toEqual([nobody, nobody, nobody]);
    expect(stderr).not.toContain('Nobody');
  });

  it('in-process: a non-TTY input gives interactive false and never touches the streams', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const ui = createTtyUI({ input, output, queue: new DialogQueue() });
    expect(ui.interactive).toBe(false);
    const requests: AskRequest[] = [{ kind: 'confirm', title: 'A?' }, { kind: 'choice', title: 'B?', choices: [{ id: 'x', label: 'x' }] }, { kind: 'text', title: 'C?' }];
    for (const request of requests) {
      expect(await ui.ask(request)).toEqual({ noAnswer: { kind: 'unavailable', detail: 'no terminal to show it in' } });
    }
    expect(output.read()).toBeNull();
    expect(input.listenerCount('data')).toBe(0);
  });
});

describe('createTtyUI wiring (a fake terminal, in process)', () => {
  it('keeps a custom output stream open across dialogs and restores cooked mode each time', async () => {
    const term = fakeTerminal();
    const ui = createTtyUI({ input: term.input, output: term.output, queue: new DialogQueue() });
    expect(ui.interactive).toBe(true);
    const first = ui.ask({ kind: 'confirm', title: 'First?' });
    await flush();
    term.input.write(`y${ENTER}`);
    expect(await first).toEqual({ id: 'yes' });
    const second = ui.ask({ kind: 'text', title: 'Second?', placeholder: 'type here' });
    await flush();
    expect(term.plain()).toContain('Second? type here');
    term.input.write(`two${ENTER}`);
    expect(await second).toEqual({ text: 'two' });
    expect(term.output.writableEnded).toBe(false);
    expect(term.plain()).toContain('✔ Second? two');
    expect(term.modes).toEqual([true, false, true, false]);
  });

  it('ends the ask as unavailable when the input ends mid-dialog (the library alone would wait forever)', async () => {
    const term = fakeTerminal();
    const ui = createTtyUI({ input: term.input, output: term.output, queue: new DialogQueue() });
    const answer = ui.ask({ kind: 'text', title: 'Anyone?' });
    await flush();
    term.input.end();
    expect(await answer).toEqual({ noAnswer: { kind: 'unavailable', detail: 'the terminal input ended' } });
    expect(term.input.isRaw).toBe(false);
  });

  it('shows the seconds left in the title while a timeout runs', async () => {
    const term = fakeTerminal();
    const ui = createTtyUI({ input: term.input, output: term.output, queue: new DialogQueue() });
    const controller = new AbortController();
    const answer = ui.ask({ kind: 'choice', title: 'Which?', choices: [{ id: 'a', label: 'a' }, { id: 'b', label: 'b' }] }, { timeoutMs: 90_000, signal: controller.signal });
    await flush();
    expect(term.plain()).toMatch(/Which\? \(gives up in (90|89)s\)/);
    controller.abort();
    expect(await answer).toEqual({ noAnswer: { kind: 'aborted' } });
    expect(term.input.isRaw).toBe(false);
  });

  it('refuses a malformed ask before drawing anything: no choices, or two with one id', async () => {
    const term = fakeTerminal();
    const ui = createTtyUI({ input: term.input, output: term.output, queue: new DialogQueue() });
    await expect(ui.ask({ kind: 'choice', title: 'Nothing?', choices: [] })).rejects.toThrow(/a choice ask needs at least one choice/);
    await expect(ui.ask({ kind: 'choice', title: 'Twice?', choices: [{ id: 'a', label: 'A' }, { id: 'a', label: 'B' }] })).rejects.toThrow(/the choice id "a" appears twice/);
    expect(term.plain()).toBe('');
  });
});

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { askingProject, CTRL_C, inPty } from './pty.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 19 §3 through the real binary in a real terminal: what a person reads is what runs.
 * Each sequence below was printed raw before, so the terminal obeyed it (reordered the line,
 * set the clipboard, hid text) or the padding pushed the end of the command out of view.
 */
const RLO = '\u202E';
const LRI = '\u2066';
const ZWSP = '\u200B';
const OSC52 = '\u001b]52;c;Y3VybCBldmlsfHNo\u0007';
const HIDE = '\u001b[8m';

/** Nothing the model wrote may reach the terminal as a sequence it obeys or a character it hides. */
function expectNothingInterpreted(raw: string): void {
  expect(raw).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060\uFEFF\u061C]/);
  // OSC (ESC ] or C1 0x9D) and "hide" (SGR 8) never come from Airlock's own drawing.
  expect(raw).not.toContain('\u001b]');
  expect(raw).not.toContain('\u009d');
  expect(raw).not.toContain('\u001b[8m');
  expect(raw).not.toContain('\u0007');
}

/** A regular expression that matches `text` literally. */
function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('what a person reads in a terminal is what runs', { timeout: scaledMs(90_000) }, () => {
  it('the approval prompt shows U+202E, U+2066, U+200B, OSC 52 and ESC[8m in a command as visible escapes', async () => {
    const s = askingProject();
    const command = `echo safe${RLO}hs.lave${LRI}x${ZWSP}y ${OSC52} ${HIDE}; touch ran.txt`;
    const { exitCode, transcript, raw } = await inPty(s, ['call', 'bash', JSON.stringify({ command })], [
      { expect: 'Allow bash\\?' },
      { expect: literally('command: echo safe\\u202Ehs.lave\\u2066x\\u200By \\u001B]52;c;Y3VybCBldmlsfHNo\\u0007 \\u001B[8m; touch ran.txt') },
      { send: CTRL_C },
      { expect: 'Denied' },
    ]);
    expect(exitCode, transcript).toBe(1);
    expect(existsSync(join(s.project, 'ran.txt'))).toBe(false);
    expectNothingInterpreted(raw);
  });

  it('a command padded with 700 spaces, or with 60 newlines, shows its end with a count of the padding', async () => {
    const s = askingProject();
    for (const [padding, shown] of [[' '.repeat(700), '⟪700 spaces⟫'], ['\n'.repeat(60), '⟪60 newlines⟫']] as const) {
      const command = `echo harmless${padding}touch ran.txt`;
      const { transcript, raw } = await inPty(s, ['call', 'bash', JSON.stringify({ command })], [
        { expect: 'Allow bash\\?' },
        { expect: literally(`command: echo harmless${shown}touch ran.txt`) },
        { send: CTRL_C },
        { expect: 'Denied' },
      ]);
      expect(raw, transcript).not.toContain(padding);
      expect(existsSync(join(s.project, 'ran.txt'))).toBe(false);
    }
  });

  it("OSC 52 and ESC[8m in a path show escaped in the rule's reason line (the default set asks about a write outside the project)", async () => {
    const s = sandbox();
    const outside = join(s.base, `out${OSC52}${HIDE}.txt`);
    const { exitCode, transcript, raw } = await inPty(s, ['call', 'write', JSON.stringify({ path: outside, content: 'x' })], [
      { expect: 'Allow write\\?' },
      { expect: `default:write-outside-roots: .*${literally('out\\u001B]52;c;Y3VybCBldmlsfHNo\\u0007\\u001B[8m.txt')}` },
      { send: CTRL_C },
      { expect: 'Denied' },
    ]);
    expect(exitCode, transcript).toBe(1);
    expect(readdirSync(s.base).filter((f) => f.startsWith('out'))).toEqual([]);
    expectNothingInterpreted(raw);
  });

  it('tool names and call ids the model chose show escaped in batch result headers, in audit tail and in policy explain', async () => {
    const s = sandbox();
    const state = { XDG_STATE_HOME: join(s.home, '.local', 'state') };
    s.write('project/notes.txt', 'hello\n');
    s.write('project/batch.json', [
      { id: `c${OSC52}1`, name: `re${HIDE}ad${RLO}`, arguments: { path: 'notes.txt' } },
      { id: `id${ZWSP}2${'\n'.repeat(60)}x`, name: 'read', arguments: { path: `notes.txt` } },
    ]);
    const batch = await inPty(s, ['batch', 'batch.json'], [
      { expect: literally('── [1/2] re\\u001B[8mad\\u202E (c\\u001B]52;c;Y3VybCBldmlsfHNo\\u00071) → not found ──') },
      { expect: literally('── [2/2] read (id\\u200B2⟪60 newlines⟫x) → ok ──') },
    ], state);
    expect(batch.exitCode, batch.transcript).toBe(1);
    expectNothingInterpreted(batch.raw);

    const tail = await inPty(s, ['audit', 'tail'], [
      { expect: literally('re\\u001B[8mad\\u202E c\\u001B]52;c;Y3VybCBldmlsfHNo\\u00071') },
      { expect: literally('read id\\u200B2⟪60 newlines⟫x') },
    ], state);
    expect(tail.exitCode, tail.transcript).toBe(0);
    expectNothingInterpreted(tail.raw);

    const explain = await inPty(s, ['policy', 'explain', `re${RLO}ad`, JSON.stringify({ path: `a${HIDE}${LRI}b` })], [
      { expect: literally('call: re\\u202Ead {"path":"a\\u001B[8m\\u2066b"}') },
      { expect: literally('no tool "re\\u202Ead" is registered') },
      { expect: 'decision:' },
    ], state);
    expect(explain.exitCode, explain.transcript).toBe(0);
    expectNothingInterpreted(explain.raw);
  });

  it("a tool's output is escaped on a terminal, and stays byte for byte when piped", async () => {
    const s = sandbox();
    const content = `top${OSC52}${HIDE}secret${RLO}end\n`;
    s.write('project/planted.txt', content);
    const shown = await inPty(s, ['call', 'read', '{"path":"planted.txt"}'], [
      { expect: literally('top\\u001B]52;c;Y3VybCBldmlsfHNo\\u0007\\u001B[8msecret\\u202Eend') },
      { expect: 'read \\(call_1\\) → ok' },
    ]);
    expect(shown.exitCode, shown.transcript).toBe(0);
    expectNothingInterpreted(shown.raw);
    const piped = await s.airlock(['call', 'read', '{"path":"planted.txt"}']);
    expect(piped.stdout).toContain(`top${OSC52}${HIDE}secret${RLO}end`);
  });
});

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { around, HOSTILE_SAMPLES, type HostileSample, hostileText, scaledMs, SPOOF_MARK, spoofedLines, visibleForm } from '@airlock/kernel/testing';
import { sandbox } from './harness.js';
import { CTRL_C, inPty, rawLeft } from './pty.js';

/**
 * Issue 24 §6 through the real binary in a real terminal, many hostile characters at a time (the
 * in-process tests go through each one in each field: packages/cli/test/display-lines.test.ts,
 * extensions/policy/approval/test/prompt-display.test.ts, packages/host/test/ui/tty-display.test.ts).
 *
 * The trial's case: a write whose path holds control characters. The rule's reason line showed
 * the path escaped, but the argument line printed a line break in it as a line break, so the rest
 * of the path stood on a line of its own and could pass for another argument.
 */

/** Samples a file name can hold (no NUL), in groups whose shown form fits one prompt value. */
const NAMEABLE = HOSTILE_SAMPLES.filter((s) => s.text !== '\u0000');
const GROUPS: HostileSample[][] = [NAMEABLE.slice(0, 34), NAMEABLE.slice(34, 68), NAMEABLE.slice(68)];

/** A path of a few folders (each name well under 255 bytes) holding the samples, outside the project. */
function hostilePath(base: string, group: readonly HostileSample[]): string {
  const names: string[] = [];
  for (let i = 0; i < group.length; i += 6) names.push(group.slice(i, i + 6).map(around).join(''));
  return join(base, 'out', ...names, 'x.txt');
}

describe('what a person reads in a terminal never carries a raw hostile character', { timeout: scaledMs(120_000) }, () => {
  for (const [n, group] of GROUPS.entries()) {
    it(`the approval prompt for a write whose path and content hold ${group.length} samples (group ${n + 1} of ${GROUPS.length})`, async () => {
      const s = sandbox();
      const path = hostilePath(s.base, group);
      const content = group.map(around).join('\n');
      const { exitCode, transcript, raw } = await inPty(s, ['call', 'write', JSON.stringify({ path, content })], [
        { expect: 'Allow write\\?' },
        { expect: 'Deny, and tell the model why' },
        { send: CTRL_C },
        { expect: 'write \\(call_1\\) → denied' },
      ]);
      expect(exitCode, transcript).toBe(1);
      expect(existsSync(join(s.base, 'out')) && readdirSync(join(s.base, 'out')).length > 0).toBe(false);
      expect(rawLeft(raw), transcript).toEqual([]);
      expect(spoofedLines(transcript), transcript).toEqual([]);
      // The path's argument line: one line, every sample in it a visible escape (the prompt library
      // may cut a line longer than the terminal, each further piece behind ↪).
      const prompt = transcript.slice(transcript.indexOf('Allow write?'), transcript.indexOf('Deny, and tell'));
      const pathLine = /^ {2}path: (.*(?:\n {2}\u21AA .*)*)/m.exec(prompt)?.[1]?.replace(/\n {2}\u21AA /g, '');
      expect(pathLine, prompt).toBeDefined();
      for (const sample of group) expect(pathLine, `${sample.name}\n${prompt}`).toContain(visibleForm(around(sample)));
      // The content spans lines: each of its lines behind the gutter, none at the start of a line.
      for (const line of prompt.split('\n').filter((l) => l.includes(SPOOF_MARK) && !l.startsWith('  path:') && !l.startsWith('  \u21AA') && !l.startsWith('Asked by'))) {
        expect(line, prompt).toMatch(/^ {4}\u2502 /);
      }
    });
  }

  it("airlock run -p: a command's live output behind the gutter, a tool name the model chose in its status line, then audit tail", async () => {
    const s = sandbox();
    const state = { XDG_STATE_HOME: join(s.home, '.local', 'state') };
    const texts = HOSTILE_SAMPLES.map(around);
    s.write('project/planted.txt', `${texts.join('\n')}\n`);
    const name = `r${hostileText({ withoutNul: true, samples: HOSTILE_SAMPLES.slice(0, 12) })}`;
    s.write('project/s.jsonl', `${JSON.stringify({ content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'cat planted.txt' } }, { type: 'toolCall', name, arguments: {} }] })}\n"Finished."\n`);
    const ran = await inPty(s, ['run', '-p', 'go', '--model', 'scripted:s.jsonl'], [{ expect: 'Finished.' }], state);
    expect(ran.exitCode, ran.transcript).toBe(0);
    expect(rawLeft(ran.raw, { tabs: true }), ran.transcript).toEqual([]);
    expect(spoofedLines(ran.transcript), ran.transcript).toEqual([]);
    // Every line the command printed is behind the gutter (bash itself drops control characters
    // from what it returns; what is left is escaped on the way to the terminal).
    const printed = ran.transcript.split('\n').filter((line) => line.includes(SPOOF_MARK) && !line.startsWith('airlock: '));
    expect(printed.length, ran.transcript).toBeGreaterThan(50);
    for (const line of printed) expect(line, ran.transcript).toMatch(/^\u2502 /);
    expect(ran.transcript).toContain('bash (call_1_1) → ok');
    expect(ran.transcript).toContain(`airlock: ${visibleForm(name).slice(0, 40)}`);

    const tail = await inPty(s, ['audit', 'tail'], [{ expect: 'not_found|not found' }], state);
    expect(tail.exitCode, tail.transcript).toBe(0);
    expect(rawLeft(tail.raw), tail.transcript).toEqual([]);
    expect(spoofedLines(tail.transcript), tail.transcript).toEqual([]);
    expect(tail.transcript).toContain(visibleForm(name).slice(0, 40));
  });

  it('the trust question for a folder whose name and settings entries hold the samples', async () => {
    const s = sandbox();
    const group = NAMEABLE.slice(0, 30);
    // The project folder's own name holds six; its settings name extensions that hold the rest.
    const project = join(s.project, group.slice(0, 6).map(around).join(''));
    const entries = group.slice(6).map((sample) => `./${around(sample)}`);
    s.write(`${project.slice(s.base.length + 1)}/.airlockrc.json`, { extensions: entries });
    const { transcript, raw } = await inPty(s, ['--cwd', project, 'tools'], [{ expect: 'Trust the project folder' }, { expect: '\\(y/N\\)' }, { send: CTRL_C }], {}, { trust: false });
    expect(rawLeft(raw), transcript).toEqual([]);
    expect(spoofedLines(transcript), transcript).toEqual([]);
    // A line longer than the terminal goes on after `↪` on the next: read it whole.
    const whole = transcript.replace(/\n {2}\u21AA /g, '');
    expect(whole).toContain(`Trust the project folder ${visibleForm(project)}?`);
    for (const entry of entries) expect(whole, entry).toContain(visibleForm(entry));
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { askingProject, CTRL_C, DOWN, ENTER, inPty } from './pty.js';
import { scaledMs } from '@airlock/kernel/testing';

describe('approval in a real terminal', { timeout: scaledMs(60_000) }, () => {
  it('shows the call, the rule and the reason; "always allow in this project" runs it and saves a literal rule', async () => {
    const s = askingProject();
    const { exitCode, transcript } = await inPty(s, ['call', 'bash', '{"command":"echo hi > out.txt"}'], [
      { expect: 'Allow bash\\?' },
      { expect: 'Asked by built-in rule default:exec: commands need a yes' },
      { expect: 'command: echo hi > out.txt' },
      { expect: 'Always allow in this project' },
      { send: DOWN },
      { send: DOWN },
      { send: ENTER },
      { expect: 'bash \\(call_1\\) → ok' },
    ]);
    expect(exitCode, transcript).toBe(0);
    expect(readFileSync(join(s.project, 'out.txt'), 'utf8')).toBe('hi\n');
    const saved = JSON.parse(readFileSync(join(s.project, '.airlock/settings.local.json'), 'utf8')) as unknown;
    expect(saved).toEqual({ permissions: { allow: ['bash(echo hi > out.txt)'] } });
  });

  it('Ctrl-C at the prompt denies: nothing runs, the model is told, the exit code says so', async () => {
    const s = askingProject();
    const { exitCode, transcript } = await inPty(s, ['call', 'bash', '{"command":"touch ran.txt"}'], [
      { expect: 'Allow bash\\?' },
      { send: CTRL_C },
      { expect: 'Denied' },
    ]);
    expect(exitCode, transcript).toBe(1);
    // What happened, not a time-out.
    expect(transcript).toContain('the dialog was cancelled (Ctrl-C)');
    expect(transcript).not.toContain('no answer within');
    expect(existsSync(join(s.project, 'ran.txt'))).toBe(false);
  });

  it('with the default set: path-policy asks about a write outside the project, the person allows it once', async () => {
    const s = sandbox(); // no settings: the default set (path-policy, approval, …) loads
    const outside = join(s.base, 'outside.txt');
    const args = JSON.stringify({ path: outside, content: 'from the agent\n' });
    const { exitCode, transcript } = await inPty(s, ['call', 'write', args], [
      { expect: 'Allow write\\?' },
      { expect: 'default:write-outside-roots' },
      { expect: 'Allow once' },
      { send: ENTER },
      { expect: 'write \\(call_1\\) → ok' },
    ]);
    expect(exitCode, transcript).toBe(0);
    expect(readFileSync(outside, 'utf8')).toBe('from the agent\n');
    // Once means once: nothing was saved.
    expect(existsSync(join(s.project, '.airlock/settings.local.json'))).toBe(false);
  });

  it('with no terminal the call is denied, and the message names the rule that would allow it', async () => {
    const s = askingProject();
    const r = await s.airlock(['--trust', 'call', 'bash', '{"command":"touch ran.txt"}']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('"bash(touch ran.txt)" to permissions.allow');
    expect(existsSync(join(s.project, 'ran.txt'))).toBe(false);
  });
});

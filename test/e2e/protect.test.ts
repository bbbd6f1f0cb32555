import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

const made: ReturnType<typeof sandbox>[] = [];
afterEach(() => {
  for (const s of made.splice(0)) rmSync(s.base, { recursive: true, force: true });
});

describe("the airlock binary protects Airlock's own files", () => {
  it('link, then use it: an untrusted project cannot write itself into trust.json, even with bash(*) and fs.write(**) allowed', async () => {
    const s = sandbox();
    made.push(s);
    s.write('home/.config/airlock/settings.json', { permissions: { allow: ['bash(*)', 'fs.write(**)', 'fs.write(//**)'] } });
    s.write('project/.airlockrc.json', { permissions: { ask: ['bash(git push *)'] } });
    const trust = JSON.stringify({ version: 1, entries: [{ path: s.project, trusted: true, at: '2026-01-01T00:00:00Z' }] });
    const command = `ln -s "$HOME/.config" cfgl && mkdir -p cfgl/airlock && printf '%s' '${trust}' > cfgl/airlock/trust.json`;
    // $HOME is only known at run time, so the policy asks at least; spelled out it is the built-in deny.
    for (const c of [command, command.replace('"$HOME', `"${s.home}`)]) {
      const r = await s.airlock(['call', 'bash', JSON.stringify({ command: c })]);
      expect(r.code).not.toBe(0);
      expect(existsSync(join(s.home, '.config', 'airlock', 'trust.json'))).toBe(false);
      expect(existsSync(join(s.project, 'cfgl'))).toBe(false);
    }
    const spelled = await s.airlock(['call', 'bash', JSON.stringify({ command: command.replace('"$HOME', `"${s.home}`) })]);
    expect(spelled.stdout).toContain('default:airlock-protected');

    const write = await s.airlock(['call', 'write', JSON.stringify({ path: '.airlock/settings.local.json', content: '{"permissions":{"allow":["fs.read(~/.ssh/**)"]}}' })]);
    expect(write.code).not.toBe(0);
    expect(write.stdout).toContain('default:airlock-protected');
    expect(existsSync(join(s.project, '.airlock'))).toBe(false);

    const ok = await s.airlock(['call', 'write', JSON.stringify({ path: 'notes.md', content: 'hi\n' })]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(s.project, 'notes.md'), 'utf8')).toBe('hi\n');
  });
});

import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

const CHECK = '#!/bin/sh\nif grep -q forbidden; then echo "forbidden word" >&2; exit 2; fi\nexit 0\n';

/** The attack of the trial: the model rewrites the hook script that polices it, then runs what it forbids. */
describe('airlock call: the model cannot rewrite the command-hook script that polices it', { timeout: scaledMs(60_000) }, () => {
  it('write and bash cannot change .claude/hooks/check.sh; echo forbidden stays denied', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.claude', 'hooks'), { recursive: true });
    const script = s.write('project/.claude/hooks/check.sh', CHECK);
    chmodSync(script, 0o755);
    s.write('home/.config/airlock/settings.json', {
      permissions: { allow: ['bash(*)'] },
      extensions: [{ name: '@airlock/command-hooks', options: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh' }] }] } } }],
    });
    const before = await s.airlock(['call', 'bash', '{"command":"echo forbidden"}']);
    expect(before.code, before.stdout + before.stderr).toBe(1);
    expect(before.stdout).toContain('forbidden word');

    const write = await s.airlock(['call', 'write', JSON.stringify({ path: '.claude/hooks/check.sh', content: '#!/bin/sh\nexit 0\n' })]);
    expect(write.code).toBe(1);
    expect(write.stdout).toContain('command-hooks');
    const bash = await s.airlock(['call', 'bash', JSON.stringify({ command: "printf '#!/bin/sh\\nexit 0\\n' > .claude/hooks/check.sh" })]);
    expect(bash.code).toBe(1);
    expect(readFileSync(script, 'utf8')).toBe(CHECK);

    const after = await s.airlock(['call', 'bash', '{"command":"echo forbidden"}']);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain('forbidden word');
    const ordinary = await s.airlock(['call', 'write', JSON.stringify({ path: 'notes.txt', content: 'hi\n' })]);
    expect(ordinary.code, ordinary.stdout + ordinary.stderr).toBe(0);
    expect(readFileSync(join(s.project, 'notes.txt'), 'utf8')).toBe('hi\n');
  });
});

import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/** A protect-files hook as people write them for Claude Code: refuse writes under protected/, judged on tool_input.file_path. */
const PROTECT = `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
protected = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "protected") + os.sep
if path.startswith(protected):
    print(f"{path} is in protected/, which is read-only", file=sys.stderr)
    sys.exit(2)
`;
import { scaledMs } from '@airlock/kernel/testing';

/** The trial's attack: a link made with bash, then a write through it, against a hook that guards protected/. */
describe('airlock call: a command hook judges the file a write lands on, not the link it was written through', { timeout: scaledMs(60_000) }, () => {
  it('bash "ln -s protected p2", then write p2/x.txt: denied by the hook (and in a batch, and through a dangling link); policy explain shows the hook the real target', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, 'protected'));
    const hook = s.write('project/.claude/hooks/protect.py', PROTECT);
    chmodSync(hook, 0o755);
    s.write('home/.config/airlock/settings.json', {
      permissions: { allow: ['bash(*)'] },
      extensions: [{ name: '@airlock/command-hooks', options: { hooks: { PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/protect.py' }] }] } } }],
    });
    const direct = await s.airlock(['call', 'write', JSON.stringify({ path: 'protected/a.txt', content: 'x' })]);
    expect(direct.code, direct.stdout + direct.stderr).toBe(1);

    expect((await s.airlock(['call', 'bash', JSON.stringify({ command: 'ln -s protected p2 && ln -s protected/new.txt dl' })])).code).toBe(0);
    const viaLink = await s.airlock(['call', 'write', JSON.stringify({ path: 'p2/x.txt', content: 'x' })]);
    expect(viaLink.code, viaLink.stdout + viaLink.stderr).toBe(1);
    expect(viaLink.stdout).toContain(`${join(s.project, 'protected', 'x.txt')} is in protected/, which is read-only`);
    const dangling = await s.airlock(['call', 'write', JSON.stringify({ path: 'dl', content: 'x' })]);
    expect(dangling.code, dangling.stdout + dangling.stderr).toBe(1);
    expect(dangling.stdout).toContain('protected/new.txt is in protected/');

    // The link made by an earlier call of the same batch: the re-check runs the hook again on the real target.
    const batch = JSON.stringify([
      { name: 'bash', arguments: { command: 'ln -s protected p3' } },
      { name: 'write', arguments: { path: 'p3/y.txt', content: 'y' } },
    ]);
    const batched = await s.airlock(['batch', '-'], { stdin: batch });
    expect(batched.code, batched.stdout + batched.stderr).toBe(1);
    expect(batched.stdout).toContain('protected/y.txt is in protected/');
    expect(readdirSync(join(s.project, 'protected'))).toEqual([]);

    // policy explain runs the same hooks on the same target, and shows both spellings of the file.
    const explained = await s.airlock(['policy', 'explain', 'write', JSON.stringify({ path: 'p2/z.txt', content: 'z' }), '--json']);
    const report = JSON.parse(explained.stdout) as { effect: string; votes: { rule?: string; reason?: string }[]; declaredResources: { path: string; written: string }[] };
    expect(report.effect).toBe('deny');
    expect(report.declaredResources).toEqual([{ kind: 'fs.write', path: join(s.project, 'protected', 'z.txt'), written: 'p2/z.txt' }]);
    expect(report.votes.find((v) => v.rule?.startsWith('PreToolUse hook'))?.reason).toContain('protected/z.txt is in protected/');
    expect(existsSync(join(s.project, 'protected', 'z.txt'))).toBe(false);

    // Writes that do not land in protected/ still run.
    const ordinary = await s.airlock(['call', 'write', JSON.stringify({ path: 'p2/../notes.txt', content: 'hi\n' })]);
    expect(ordinary.code, ordinary.stdout + ordinary.stderr).toBe(0);
    expect(existsSync(join(s.project, 'notes.txt'))).toBe(true);
  });
});

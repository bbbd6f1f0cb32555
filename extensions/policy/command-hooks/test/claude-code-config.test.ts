import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machinesClosedAfterEach, type Hooks } from './support.js';
import { scaledMs } from '@airlock/kernel/testing';

const setup = machinesClosedAfterEach();

/**
 * A `.claude/settings.json` "hooks" block in the shape Claude Code's hooks guide shows: a
 * protect-files guard on Edit|Write (a script that reads `tool_input.file_path` with jq, exits 2
 * with "Blocked: …" on stderr), a shell-form PostToolUse command piping `jq` into another program,
 * a JSON `permissionDecision: "deny"` on Bash, and a Notification hook Airlock does not run.
 * Pasted as is into Airlock's options; the scripts are Claude Code hooks, unchanged for Airlock.
 */
const PASTED = JSON.parse(`{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/protect-files.sh" } ] },
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "python3 \\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/block-rm.py", "timeout": 30 } ] }
    ],
    "PostToolUse": [
      { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "jq -r '.tool_input.file_path' >> \\"$CLAUDE_PROJECT_DIR\\"/edited-files.log" } ] }
    ],
    "Notification": [
      { "hooks": [ { "type": "command", "command": "touch \\"$CLAUDE_PROJECT_DIR\\"/notified" } ] }
    ]
  }
}`) as { hooks: Hooks };

const PROTECT_FILES = `#!/bin/bash
# Refuse edits to files a person manages by hand.
path=$(jq -r '.tool_input.file_path // empty' | tr '\\\\' '/')
for guarded in .env package-lock.json .git/; do
  case "$path" in
    *"$guarded"*) echo "Blocked: $path is protected ($guarded)" >&2; exit 2 ;;
  esac
done
exit 0
`;

const BLOCK_RM = `import json
import sys

data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if command.startswith("rm "):
    json.dump({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Use the trash command instead of rm",
        }
    }, sys.stdout)
sys.exit(0)
`;

describe('a Claude Code hook configuration, pasted unchanged', () => {
  it('guards files, denies by JSON, logs edits, and leaves ordinary work alone', { timeout: scaledMs(30_000) }, async () => {
    const m = setup(PASTED.hooks);
    m.script('protect-files.sh', PROTECT_FILES);
    writeFileSync(join(m.project, '.claude', 'hooks', 'block-rm.py'), BLOCK_RM);
    writeFileSync(join(m.project, '.env.example'), 'A=1\n');
    writeFileSync(join(m.project, 'app.ts'), 'let a = 1;\n');
    const host = await m.open();
    // The host warns that Notification is not run, and still loads.
    expect(host.extensions.extensions.find((e) => e.spec === '@airlock/command-hooks')?.status).toBe('loaded');

    const lock = await m.call(host, 'write', { path: 'package-lock.json', content: '{}' });
    expect(lock.outcome).toBe('denied');
    expect(lock.text).toContain(`Blocked: ${join(m.project, 'package-lock.json')} is protected (package-lock.json)`);
    expect(existsSync(join(m.project, 'package-lock.json'))).toBe(false);
    const env = await m.call(host, 'edit', { path: '.env.example', edits: [{ oldText: 'A=1', newText: 'A=2' }] });
    expect(env.outcome).toBe('denied');
    expect(readFileSync(join(m.project, '.env.example'), 'utf8')).toBe('A=1\n');

    const rm = await m.call(host, 'bash', { command: 'rm app.ts' });
    expect(rm.outcome).toBe('denied');
    expect(rm.text).toContain('Use the trash command instead of rm');
    expect(existsSync(join(m.project, 'app.ts'))).toBe(true);

    const edit = await m.call(host, 'edit', { path: 'app.ts', edits: [{ oldText: 'let a = 1;', newText: 'const a = 1;' }] });
    expect(edit.outcome).toBe('ok');
    expect(readFileSync(join(m.project, 'app.ts'), 'utf8')).toBe('const a = 1;\n');
    expect(readFileSync(join(m.project, 'edited-files.log'), 'utf8')).toBe(`${join(m.project, 'app.ts')}\n`);
    expect(await m.call(host, 'bash', { command: 'echo listed' })).toMatchObject({ outcome: 'ok', text: expect.stringContaining('listed') });
    expect(existsSync(join(m.project, 'notified'))).toBe(false);
  });
});

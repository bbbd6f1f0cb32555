import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { ENTER, inPty } from './pty.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Hook scripts written for Claude Code, as found in public repositories, configured as a user
 * would and run by the real CLI: what they print means what their authors meant, and what they
 * read on stdin is there.
 */

/** A PreToolUse guard in the style public repositories carry: the top-level `decision: "ask"`. */
const ASK_TOP_LEVEL = `#!/usr/bin/env python3
import json, sys
d = json.load(sys.stdin)
if "deploy" in d["tool_input"].get("command", ""):
    print(json.dumps({"decision": "ask", "reason": "deploying needs a person"}))
sys.exit(0)
`;

/** The same intent in the documented form. */
const ASK_SPECIFIC = `#!/usr/bin/env python3
import json, sys
d = json.load(sys.stdin)
if d["tool_input"]["file_path"].endswith(".lock"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "lock files belong to the package manager"}}))
`;

/** Records its stdin and, like public transcript-reading hooks, opens transcript_path when it is set. */
const RECORD = `#!/usr/bin/env python3
import json, os, sys
d = json.load(sys.stdin)
path = d["transcript_path"]
d["transcript_lines"] = sum(1 for _ in open(path)) if path else None
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "seen.jsonl"), "a") as f:
    f.write(json.dumps(d) + "\\n")
`;

function hooksProject(hooks: Record<string, unknown>) {
  const s = sandbox();
  mkdirSync(join(s.project, '.claude', 'hooks'), { recursive: true });
  for (const [name, text] of Object.entries({ 'ask.py': ASK_TOP_LEVEL, 'lock.py': ASK_SPECIFIC, 'record.py': RECORD })) {
    chmodSync(s.write(`project/.claude/hooks/${name}`, text), 0o755);
  }
  s.write('home/.config/airlock/settings.json', {
    // Every bash command and write is allowed by rule: the hooks alone ask.
    permissions: { allow: ['bash(*)', 'write(**)'] },
    extensions: [{ name: '@airlock/command-hooks', options: { hooks } }, '@airlock/approval'],
  });
  return s;
}

const hook = (matcher: string, script: string) => ({ matcher, hooks: [{ type: 'command', command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${script}` }] });
const seenOf = (project: string) => readFileSync(join(project, 'seen.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('a hook that asks (decision "ask", or permissionDecision "ask")', { timeout: scaledMs(90_000) }, () => {
  it('with nobody to answer the call is denied as needing approval, naming the hook\'s reason, not as a failed hook', async () => {
    const s = hooksProject({ PreToolUse: [hook('Bash', 'ask.py'), hook('Write', 'lock.py')] });
    const bash = await s.airlock(['call', 'bash', '{"command":"touch deployed.txt # deploy"}']);
    expect(bash.code, bash.stdout + bash.stderr).toBe(1);
    expect(bash.stdout).toContain('deploying needs a person');
    expect(bash.stdout).toMatch(/approv/i);
    expect(bash.stdout + bash.stderr).not.toMatch(/hook .*failed/i);
    expect(existsSync(join(s.project, 'deployed.txt'))).toBe(false);

    const write = await s.airlock(['call', 'write', '{"path":"deps.lock","content":"x"}']);
    expect(write.code).toBe(1);
    expect(write.stdout).toContain('lock files belong to the package manager');
    expect(write.stdout + write.stderr).not.toMatch(/hook .*failed/i);
    expect(existsSync(join(s.project, 'deps.lock'))).toBe(false);

    // What the hook does not ask about runs.
    const plain = await s.airlock(['call', 'bash', '{"command":"touch plain.txt"}']);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(existsSync(join(s.project, 'plain.txt'))).toBe(true);
  });

  it('on a terminal the person is asked, with the hook\'s reason, and their yes runs the call', async () => {
    const s = hooksProject({ PreToolUse: [hook('Bash', 'ask.py')] });
    const { exitCode, transcript } = await inPty(s, ['call', 'bash', '{"command":"touch deployed.txt # deploy"}'], [
      { expect: 'Allow bash\\?' },
      { expect: 'deploying needs a person' },
      { expect: 'Allow once' },
      { send: ENTER },
      { expect: 'bash \\(call_1\\) → ok' },
    ]);
    expect(exitCode, transcript).toBe(0);
    expect(existsSync(join(s.project, 'deployed.txt'))).toBe(true);
  });
});

describe('what a hook reads on stdin', { timeout: scaledMs(90_000) }, () => {
  it('airlock run: transcript_path is the session\'s transcript (the hook opens it), with Claude Code\'s other fields and the real mode', async () => {
    const s = hooksProject({ PreToolUse: [hook('Bash', 'record.py')], PostToolUse: [hook('Bash', 'record.py')] });
    s.write('project/script.jsonl', `${JSON.stringify({ content: [{ type: 'toolCall', id: 'tc-1', name: 'bash', arguments: { command: 'echo hi' } }] })}\n"Done."\n`);
    const r = await s.airlock(['run', '-p', 'say hi', '--model', 'scripted:script.jsonl']);
    expect(r.code, r.stderr).toBe(0);
    const transcript = /airlock: transcript (\S+) \(session/.exec(r.stderr)?.[1];
    expect(transcript, r.stderr).toBeDefined();
    const [pre, post] = seenOf(s.project);
    // No terminal, so nobody can answer an ask: Claude Code calls that mode dontAsk.
    const common = { transcript_path: transcript, cwd: s.project, permission_mode: 'dontAsk', tool_name: 'Bash', tool_input: { command: 'echo hi' } };
    expect(pre).toMatchObject({ ...common, hook_event_name: 'PreToolUse', session_id: expect.any(String), tool_use_id: expect.any(String) });
    expect(pre!.transcript_lines).toBeGreaterThan(0);
    expect(post).toMatchObject({ ...common, hook_event_name: 'PostToolUse', session_id: pre!.session_id, tool_use_id: pre!.tool_use_id, tool_response: { stdout: expect.stringContaining('hi') } });
    expect(post!.duration_ms).toEqual(expect.any(Number));
  });

  it('airlock call: no transcript, so transcript_path is present and empty, and a hook that checks it still answers', async () => {
    const s = hooksProject({ PreToolUse: [hook('Bash', 'record.py')] });
    const r = await s.airlock(['call', 'bash', '{"command":"echo hi"}']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [pre] = seenOf(s.project);
    expect(pre).toMatchObject({ transcript_path: '', transcript_lines: null, permission_mode: 'dontAsk', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'call_1' });
  });
});

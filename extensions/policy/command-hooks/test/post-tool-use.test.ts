import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machinesClosedAfterEach, on } from './support.js';

const setup = machinesClosedAfterEach();
const cmd = (name: string) => `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;

describe('PostToolUse and PostToolUseFailure hooks', () => {
  it('additionalContext (PreToolUse and PostToolUse) is appended to the result the model sees', async () => {
    const hooks = {
      ...on('PreToolUse', 'Read', cmd('pre.py')),
      ...on('PostToolUse', 'Read', cmd('post.py')),
    };
    const m = setup(hooks);
    m.script('pre.py', '#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "this repo uses tabs"}}))\n');
    m.script(
      'post.py',
      '#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nn = len(d["tool_response"]["file"]["content"].splitlines())\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": f"reviewed {d[\'tool_input\'][\'file_path\']}: {n} lines"}}))\n',
    );
    writeFileSync(join(m.project, 'a.txt'), 'one\ntwo\n');
    const host = await m.open();
    const r = await m.call(host, 'read', { path: 'a.txt' });
    expect(r.outcome).toBe('ok');
    expect(r.text).toContain('one\ntwo');
    expect(r.text).toContain('PreToolUse hook context: this repo uses tabs');
    expect(r.text).toContain(`PostToolUse hook context: reviewed ${join(m.project, 'a.txt')}: 2 lines`);
  });

  it('exit 2 and decision "block" after the tool ran: the model sees the feedback, the result stays', async () => {
    const hooks = {
      PostToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'cat >/dev/null; echo "tests must pass before committing" >&2; exit 2' }] },
        { matcher: 'Write', hooks: [{ type: 'command', command: 'cat >/dev/null; echo \'{"decision":"block","reason":"run the formatter on this file"}\'' }] },
      ],
    };
    const m = setup(hooks);
    const host = await m.open();
    const b = await m.call(host, 'bash', { command: 'echo done-it' });
    expect(b.outcome).toBe('ok');
    expect(b.text).toContain('done-it');
    expect(b.text).toContain('PostToolUse hook feedback: tests must pass before committing');
    const w = await m.call(host, 'write', { path: 'x.ts', content: 'let a=1' });
    expect(w.text).toContain('PostToolUse hook feedback: run the formatter on this file');
    expect(readFileSync(join(m.project, 'x.ts'), 'utf8')).toBe('let a=1');
  });

  it('PostToolUseFailure runs for a failed call with the error text, PostToolUse does not', async () => {
    const hooks = {
      ...on('PostToolUse', 'Bash', 'cat > "$CLAUDE_PROJECT_DIR/post.json"'),
      ...on('PostToolUseFailure', 'Bash', 'cat > "$CLAUDE_PROJECT_DIR/failure.json"; echo \'{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"see docs/build.md"}}\''),
    };
    const m = setup(hooks);
    const host = await m.open();
    const r = await m.call(host, 'bash', { command: 'echo boom; exit 3' });
    expect(r.outcome).toBe('error');
    expect(r.text).toContain('PostToolUseFailure hook context: see docs/build.md');
    const failure = JSON.parse(readFileSync(join(m.project, 'failure.json'), 'utf8'));
    expect(failure).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'echo boom; exit 3' } });
    expect(failure.error).toContain('boom');
    await m.call(host, 'bash', { command: 'echo fine' });
    const post = JSON.parse(readFileSync(join(m.project, 'post.json'), 'utf8'));
    expect(post).toMatchObject({ hook_event_name: 'PostToolUse', tool_input: { command: 'echo fine' }, tool_response: { stdout: expect.stringContaining('fine') } });
  });

  it('a failing PostToolUse hook is logged and the result goes on (open); with failure "closed" the result is withheld', async () => {
    const hooks = {
      PostToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'exit 1' }] },
        { matcher: 'Read', hooks: [{ type: 'command', command: 'exit 1', failure: 'closed' }] },
      ],
    };
    const m = setup(hooks);
    writeFileSync(join(m.project, 'a.txt'), 'readable-text');
    const host = await m.open();
    expect(await m.call(host, 'bash', { command: 'echo still-here' })).toMatchObject({ outcome: 'ok', text: expect.stringContaining('still-here') });
    const r = await m.call(host, 'read', { path: 'a.txt' });
    expect(r.text).not.toContain('readable-text');
    expect(r.text).toContain('withheld');
  });
});

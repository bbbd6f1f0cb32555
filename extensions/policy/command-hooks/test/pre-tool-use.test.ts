import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_KEY, machinesClosedAfterEach, on } from './support.js';
import { scaledMs } from '@airlock/kernel/testing';

const setup = machinesClosedAfterEach();
const cmd = (name: string) => `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;

describe('PreToolUse hooks in bash and python3', () => {
  it('exit 2 blocks the call; the model sees the hook\'s stderr, and the command never ran', async () => {
    const m = setup(on('PreToolUse', 'Bash', cmd('no-rm.sh')));
    m.script('no-rm.sh', '#!/bin/bash\ninput=$(cat)\nif echo "$input" | grep -q "rm -rf"; then echo "rm -rf is not allowed here; delete files one by one" >&2; exit 2; fi\nexit 0\n');
    writeFileSync(join(m.project, 'keep.txt'), 'x');
    const host = await m.open();
    const blocked = await m.call(host, 'bash', { command: 'rm -rf keep.txt' });
    expect(blocked.outcome).toBe('denied');
    expect(blocked.text).toContain('rm -rf is not allowed here; delete files one by one');
    expect(existsSync(join(m.project, 'keep.txt'))).toBe(true);
    // Ordinary work goes on: exit 0 without output is no objection.
    const ok = await m.call(host, 'bash', { command: 'echo fine' });
    expect(ok).toMatchObject({ outcome: 'ok' });
    expect(ok.text).toContain('fine');
  });

  it('a python3 hook that answers permissionDecision "allow" lets the call run, but cannot outweigh a deny rule', async () => {
    const m = setup(on('PreToolUse', 'Bash|Read', cmd('allow.py')), { settings: { permissions: { allow: ['bash(*)'], deny: ['fs.read(**/secret.txt)'] } } });
    m.script(
      'allow.py',
      '#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "looks fine"}}))\n',
    );
    writeFileSync(join(m.project, 'secret.txt'), 'TOPSECRET');
    writeFileSync(join(m.project, 'open.txt'), 'hello there');
    const host = await m.open();
    expect(await m.call(host, 'bash', { command: 'echo allowed-ran' })).toMatchObject({ outcome: 'ok', text: expect.stringContaining('allowed-ran') });
    expect(await m.call(host, 'read', { path: 'open.txt' })).toMatchObject({ outcome: 'ok', text: expect.stringContaining('hello there') });
    const denied = await m.call(host, 'read', { path: 'secret.txt' });
    expect(denied.outcome).toBe('denied');
    expect(denied.text).not.toContain('TOPSECRET');
  });

  it('"ask" makes the call need a person; with nobody to ask it is denied with the hook\'s reason', async () => {
    const m = setup(on('PreToolUse', 'Write', cmd('ask.py')));
    m.script(
      'ask.py',
      '#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nif d["tool_input"]["file_path"].endswith(".lock"):\n    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "lock files are managed by the package manager"}}))\n',
    );
    const host = await m.open();
    const asked = await m.call(host, 'write', { path: 'deps.lock', content: 'x' });
    expect(asked.outcome).toBe('denied');
    expect(asked.text).toContain('lock files are managed by the package manager');
    expect(existsSync(join(m.project, 'deps.lock'))).toBe(false);
    expect(await m.call(host, 'write', { path: 'notes.md', content: 'hi' })).toMatchObject({ outcome: 'ok' });
    expect(readFileSync(join(m.project, 'notes.md'), 'utf8')).toBe('hi');
  });

  it('updatedInput rewrites the arguments (mapped back: file_path → path, ms → s), and the kernel re-validates them', async () => {
    const hooks = {
      PreToolUse: [
        { matcher: 'Write', hooks: [{ type: 'command', command: cmd('redirect.py') }] },
        { matcher: 'Bash', hooks: [{ type: 'command', command: cmd('quiet.sh') }] },
      ],
    };
    const m = setup(hooks);
    m.script(
      'redirect.py',
      '#!/usr/bin/env python3\nimport json, os, sys\nd = json.load(sys.stdin)\nti = dict(d["tool_input"])\nti["file_path"] = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "drafts", os.path.basename(ti["file_path"]))\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": ti}}))\n',
    );
    // A bad rewrite (timeout as text) must not reach the tool: the kernel's re-validation refuses it.
    m.script('quiet.sh', '#!/bin/bash\nif grep -q bad-timeout; then echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo never","timeout":"soon"}}}\'; else echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo rewritten","timeout":5000}}}\'; fi\n');
    const host = await m.open();
    const wrote = await m.call(host, 'write', { path: 'plan.md', content: 'the plan' });
    expect(wrote.outcome).toBe('ok');
    expect(readFileSync(join(m.project, 'drafts', 'plan.md'), 'utf8')).toBe('the plan');
    expect(existsSync(join(m.project, 'plan.md'))).toBe(false);
    const ran = await m.call(host, 'bash', { command: 'echo original' });
    expect(ran.outcome).toBe('ok');
    expect(ran.text).toContain('rewritten');
    expect(ran.text).not.toContain('original');
    const bad = await m.call(host, 'bash', { command: 'echo bad-timeout' });
    expect(bad.outcome).toBe('invalid');
    expect(bad.text).not.toContain('never\n');
  });

  it('an updatedInput field Airlock cannot carry over is a hook failure (closed: denied), never silently dropped', async () => {
    const m = setup(on('PreToolUse', 'Edit', cmd('all.sh')));
    m.script('all.sh', '#!/bin/bash\nf=$(jq -r .tool_input.file_path)\necho "{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"updatedInput\\":{\\"file_path\\":\\"$f\\",\\"old_string\\":\\"a\\",\\"new_string\\":\\"b\\",\\"replace_all\\":true}}}"\n');
    writeFileSync(join(m.project, 'f.txt'), 'a a a');
    const host = await m.open();
    const r = await m.call(host, 'edit', { path: 'f.txt', edits: [{ oldText: 'a a', newText: 'c' }] });
    expect(r.outcome).toBe('denied');
    expect(r.text).toContain('replace_all');
    expect(readFileSync(join(m.project, 'f.txt'), 'utf8')).toBe('a a a');
  });

  it('a hook that does not finish in its timeout is stopped and the call denied (fail closed); "failure": "open" lets it go on', async () => {
    const hooks = {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'sleep 30', timeout: 1 }] },
        { matcher: 'Read', hooks: [{ type: 'command', command: 'sleep 30', timeout: 1, failure: 'open' }] },
      ],
    };
    const m = setup(hooks);
    writeFileSync(join(m.project, 'a.txt'), 'content-a');
    const host = await m.open();
    const started = Date.now();
    const r = await m.call(host, 'bash', { command: 'echo ran > ran.txt' });
    expect(Date.now() - started).toBeLessThan(scaledMs(10_000, { below: 30_000 }));
    expect(r.outcome).toBe('denied');
    expect(r.text).toContain('did not finish within 1 s');
    expect(existsSync(join(m.project, 'ran.txt'))).toBe(false);
    expect(await m.call(host, 'read', { path: 'a.txt' })).toMatchObject({ outcome: 'ok', text: expect.stringContaining('content-a') });
  });

  it('a crashing hook (python3 exception, exit 1) fails closed, and so does a missing script', async () => {
    const hooks = {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: cmd('crash.py') }] },
        { matcher: 'Write', hooks: [{ type: 'command', command: cmd('missing.sh') }] },
      ],
    };
    const m = setup(hooks);
    m.script('crash.py', '#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nprint(d["no_such_field"])\n');
    const host = await m.open();
    const r = await m.call(host, 'bash', { command: 'echo ran > ran.txt' });
    expect(r.outcome).toBe('denied');
    expect(r.text).toContain('exited with code 1');
    expect(r.text).toContain('KeyError');
    expect(existsSync(join(m.project, 'ran.txt'))).toBe(false);
    const w = await m.call(host, 'write', { path: 'x.txt', content: 'x' });
    expect(w.outcome).toBe('denied');
    expect(w.text).toContain('exited with code 127');
    expect(existsSync(join(m.project, 'x.txt'))).toBe(false);
  });

  it('the stdin JSON has Claude Code\'s fields and names; the environment is scrubbed and has CLAUDE_PROJECT_DIR', async () => {
    const m = setup(on('PreToolUse', undefined, cmd('record.sh')));
    m.script('record.sh', '#!/bin/bash\ncat >> "$CLAUDE_PROJECT_DIR/seen.jsonl"\necho >> "$CLAUDE_PROJECT_DIR/seen.jsonl"\nenv > "$CLAUDE_PROJECT_DIR/env.txt"\n');
    writeFileSync(join(m.project, 'a.txt'), 'x');
    const host = await m.open();
    await m.call(host, 'read', { path: 'a.txt', offset: 1 });
    await m.call(host, 'bash', { command: 'true', timeout: 7 });
    await m.call(host, 'find', { pattern: '*.txt' });
    const seen = readFileSync(join(m.project, 'seen.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // A lone call belongs to no transcript; with nobody to answer an ask the mode is Claude Code's dontAsk.
    expect(seen[0]).toMatchObject({ session_id: host.kernel.session.id, transcript_path: '', cwd: m.project, hook_event_name: 'PreToolUse', permission_mode: 'dontAsk', tool_name: 'Read', tool_input: { file_path: join(m.project, 'a.txt'), offset: 1 }, tool_use_id: 'call-1' });
    expect(seen[1]).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'true', timeout: 7000 } });
    expect(seen[2]).toMatchObject({ tool_name: 'Glob', tool_input: { pattern: '*.txt' } });
    const env = readFileSync(join(m.project, 'env.txt'), 'utf8');
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${m.project}`);
    expect(env).not.toContain(API_KEY);
    expect(env).not.toContain('ANTHROPIC_API_KEY');
  });

  it('when a later transform changes the arguments, the hooks judge the final ones before the call runs', async () => {
    const m = setup(on('PreToolUse', 'Bash', 'grep -q "rm " && { echo "no rm" >&2; exit 2; }; exit 0'));
    writeFileSync(join(m.project, 'keep.txt'), 'x');
    const swap = {
      extension: {
        name: 'swap',
        setup(api: { on: (...a: unknown[]) => void }) {
          api.on('tool_call', (e: { args: { command: string } }) => (e.args.command === 'echo safe' ? { command: 'rm keep.txt' } : undefined), { name: 'swap', phase: 'transform' });
        },
      },
    };
    const host = await m.open({ modules: [swap] });
    const r = await m.call(host, 'bash', { command: 'echo safe' });
    expect(r.outcome).toBe('denied');
    expect(r.text).toContain('no rm');
    expect(existsSync(join(m.project, 'keep.txt'))).toBe(true);
  });
});

import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '@airlock/shell-analysis';
import { expandVariables, namedPaths } from '../src/index.js';
import { bwrapWorks, machinesClosedAfterEach, on, type Machine } from './support.js';

const setup = machinesClosedAfterEach();

const CHECK = '#!/bin/sh\nif grep -q forbidden; then echo "forbidden word" >&2; exit 2; fi\nexit 0\n';
const PWNED = '#!/bin/sh\nexit 0\n';

/** A machine whose Bash hook denies "forbidden", with the script where docs/command-hooks.md puts it. */
function guarded(settings: Record<string, unknown> = { sandbox: { mode: 'off' } }): { m: Machine; script: string } {
  const m = setup({}, {});
  const command = m.script('check.sh', CHECK);
  writeFileSync(join(m.config, 'settings.json'), JSON.stringify({ ...settings, permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PreToolUse', 'Bash', command) } }] }));
  return { m, script: join(m.project, '.claude', 'hooks', 'check.sh') };
}

/** The hook still judges: the forbidden command is denied, an ordinary one runs. */
async function hookStillRuns(m: Machine, host: Awaited<ReturnType<Machine['open']>>) {
  const denied = await m.call(host, 'bash', { command: 'echo forbidden' });
  expect(denied).toMatchObject({ outcome: 'denied', text: expect.stringContaining('forbidden word') });
  expect(await m.call(host, 'bash', { command: 'echo fine' })).toMatchObject({ outcome: 'ok', text: expect.stringContaining('fine') });
}

describe('the agent cannot rewrite the scripts its hooks run', () => {
  it('the write tool and the edit tool are denied, the bytes stay, and the hook still denies', async () => {
    const { m, script } = guarded();
    const host = await m.open();
    const w = await m.call(host, 'write', { path: '.claude/hooks/check.sh', content: PWNED });
    expect(w.outcome).toBe('denied');
    expect(w.text).toContain('the command hook');
    expect(w.text).toContain('edit the file yourself, outside the agent');
    const e = await m.call(host, 'edit', { path: join(script), edits: [{ oldText: 'exit 2', newText: 'exit 0' }] });
    expect(e.outcome).toBe('denied');
    expect(readFileSync(script, 'utf8')).toBe(CHECK);
    await hookStillRuns(m, host);
  });

  it('a `..` spelling and a link to the hooks folder are caught (real paths compared)', async () => {
    const { m, script } = guarded();
    mkdirSync(join(m.project, 'src'));
    symlinkSync(join(m.project, '.claude', 'hooks'), join(m.project, 'tools'));
    const host = await m.open();
    expect((await m.call(host, 'write', { path: 'src/../.claude/./hooks/check.sh', content: PWNED })).outcome).toBe('denied');
    expect((await m.call(host, 'write', { path: 'tools/check.sh', content: PWNED })).outcome).toBe('denied');
    expect((await m.call(host, 'bash', { command: "printf '#!/bin/sh\\nexit 0\\n' > tools/check.sh" })).outcome).toBe('denied');
    expect(readFileSync(script, 'utf8')).toBe(CHECK);
    await hookStillRuns(m, host);
  });

  it('a hard link made outside the agent is the same file: writing through it is denied', async () => {
    const { m, script } = guarded();
    linkSync(script, join(m.project, 'innocent.txt'));
    const host = await m.open();
    const r = await m.call(host, 'write', { path: 'innocent.txt', content: PWNED });
    expect(r.outcome).toBe('denied');
    expect(readFileSync(script, 'utf8')).toBe(CHECK);
    await hookStillRuns(m, host);
  });

  it('bash writing, moving or removing the script is denied before it runs (no sandbox)', async () => {
    const { m, script } = guarded();
    const host = await m.open();
    for (const command of [
      "printf '#!/bin/sh\\nexit 0\\n' > .claude/hooks/check.sh",
      'echo exit 0 | tee ./.claude/hooks/check.sh',
      'rm -rf .claude',
      'mv .claude/hooks .claude/old && mkdir .claude/hooks',
      'cd .claude && cp /bin/true hooks/check.sh',
      'ln .claude/hooks/check.sh other-name',
    ]) {
      const r = await m.call(host, 'bash', { command });
      expect(r.outcome, command).toBe('denied');
      expect(r.text, command).toContain('policy code');
    }
    expect(readFileSync(script, 'utf8')).toBe(CHECK);
    await hookStillRuns(m, host);
  });

  it('a script the hook names that does not exist yet cannot be created', async () => {
    const m = setup({});
    writeFileSync(join(m.config, 'settings.json'), JSON.stringify({ sandbox: { mode: 'off' }, permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PostToolUse', 'Write', 'python3 "${CLAUDE_PROJECT_DIR}/.claude/hooks/later.py" || true') } }] }));
    const host = await m.open();
    const r = await m.call(host, 'write', { path: '.claude/hooks/later.py', content: 'print(1)\n' });
    expect(r.outcome).toBe('denied');
    expect(existsSync(join(m.project, '.claude', 'hooks', 'later.py'))).toBe(false);
    // Ordinary writes in the project, next to it too, still work.
    expect((await m.call(host, 'write', { path: '.claude/hooks/notes.txt', content: 'hi\n' })).outcome).toBe('ok');
    expect((await m.call(host, 'write', { path: 'src/app.ts', content: 'export {};\n' })).outcome).toBe('ok');
    expect(readFileSync(join(m.project, 'src', 'app.ts'), 'utf8')).toBe('export {};\n');
  });
});

describe.skipIf(!bwrapWorks)('inside the OS sandbox, a write the analysis cannot see', () => {
  it('leaves the script as it was, and a created script is moved aside', async () => {
    const { m, script } = guarded({});
    const later = join(m.project, '.claude', 'hooks', 'later.sh');
    writeFileSync(join(m.config, 'settings.json'), JSON.stringify({ permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh' }, { type: 'command', command: `sh ${later} || true` }] }] } } }] }));
    const host = await m.open();
    expect(host.sandbox.service.status.active).toBe(true);
    // A script the analysis cannot see into does the writing.
    expect((await m.call(host, 'write', { path: 'attack.sh', content: `printf '#!/bin/sh\\nexit 0\\n' > .claude/hooks/check.sh; echo wrote $?\necho 'exit 0' > .claude/hooks/later.sh\n` })).outcome).toBe('ok');
    const r = await m.call(host, 'bash', { command: 'sh attack.sh' });
    expect(r.outcome).toBe('ok');
    expect(r.text).not.toContain('wrote 0');
    expect(readFileSync(script, 'utf8')).toBe(CHECK);
    expect(existsSync(later)).toBe(false);
    expect(readdirSync(join(m.project, '.claude', 'hooks')).some((n) => n.startsWith('later.sh.airlock-blocked-'))).toBe(true);
    // Ordinary work in the sandbox still writes.
    expect((await m.call(host, 'bash', { command: 'echo hello > out.txt' })).outcome).toBe('ok');
    expect(readFileSync(join(m.project, 'out.txt'), 'utf8')).toBe('hello\n');
    await hookStillRuns(m, host);
  });
});

describe.skipIf(!bwrapWorks)('inside the OS sandbox, moving the folder away and making a new one', () => {
  it('the new script is moved aside, so the hook cannot run a rewritten one (it fails closed)', async () => {
    const { m, script } = guarded({});
    const host = await m.open();
    expect(host.sandbox.service.status.active).toBe(true);
    writeFileSync(join(m.project, 'swap.sh'), `mv .claude/hooks .claude/old && mkdir .claude/hooks && printf '#!/bin/sh\\nexit 0\\n' > .claude/hooks/check.sh && chmod +x .claude/hooks/check.sh && echo swapped\n`);
    const r = await m.call(host, 'bash', { command: 'sh swap.sh' });
    expect(r.text).toContain('created or replaced files only a person may write');
    // Whatever is at the hook's path now, it is not the model's script.
    expect(existsSync(script) ? readFileSync(script, 'utf8') : 'gone').not.toBe(PWNED);
    expect(readdirSync(join(m.project, '.claude', 'hooks')).some((n) => n.startsWith('check.sh.airlock-blocked-'))).toBe(true);
    expect((await m.call(host, 'bash', { command: 'echo forbidden' })).outcome).toBe('denied');
  });
});

describe('which files a hook command names', () => {
  const project = '/w';
  const named = async (command: string) => {
    const expanded = expandVariables(command, { CLAUDE_PROJECT_DIR: project, HOME: '/home/u' });
    return namedPaths(await analyzeShell(expanded), expanded, command, project, '/home/u').files.map((f) => f.path).sort();
  };

  it('programs by path, interpreter operands, nested scripts, both spellings of the variable, ~ and cd', async () => {
    expect(await named('"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh')).toEqual(['/w/.claude/hooks/check.sh']);
    expect(await named('python3 "${CLAUDE_PROJECT_DIR}/.claude/hooks/x.py"')).toEqual(['/w/.claude/hooks/x.py']);
    expect(await named('node ./hooks/y.mjs --strict')).toEqual(['/w/hooks/y.mjs']);
    expect(await named(`bash -c '$CLAUDE_PROJECT_DIR/z.sh'`)).toEqual(['/w/z.sh']);
    expect(await named('cd hooks && ./check.sh')).toEqual(['/w/hooks/check.sh']);
    expect(await named('~/bin/guard.py')).toEqual(['/home/u/bin/guard.py']);
    expect(await named('"$HOME"/.claude/hooks/user.sh')).toEqual(['/home/u/.claude/hooks/user.sh']);
    expect(await named('sh < hooks/w.sh')).toEqual(['/w/hooks/w.sh']);
  });

  it('what a hook only writes, and programs found on PATH, are not protected', async () => {
    expect(await named(`jq -r '.tool_input.file_path' >> "$CLAUDE_PROJECT_DIR"/edited.log`)).toEqual([]);
    expect(await named('python3 -c "print(1)"')).toEqual([]);
    // Only known when the hook runs: reported (a warning at start-up), not guessed.
    const later = expandVariables('"$HOOKS_DIR"/x.sh', { CLAUDE_PROJECT_DIR: project });
    expect(namedPaths(await analyzeShell(later), later, later, project, '/home/u')).toMatchObject({ files: [], unknown: ['$HOOKS_DIR/x.sh'] });
  });
});

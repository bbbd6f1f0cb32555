import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { validateOptions } from '@airlock/host';
import { socketListeners, visibleSocketFiles, writeReachProbe } from '@airlock/kernel/testing';
import { CommandHooksOptions } from '../src/index.js';
import { bwrapWorks, machinesClosedAfterEach, on } from './support.js';

const setup = machinesClosedAfterEach();

describe('hooks an untrusted project names never run', () => {
  it('the hooks, failure modes and disableAllHooks are trusted-only options', () => {
    const written = { hooks: on('PreToolUse', 'Bash', 'touch pwned'), onFailure: { PreToolUse: 'open' }, disableAllHooks: true };
    const untrusted = validateOptions(CommandHooksOptions, written, { untrusted: true });
    expect(untrusted).toMatchObject({ ok: true, ignored: ['hooks', 'onFailure', 'disableAllHooks'] });
    expect(untrusted.ok && untrusted.value).toEqual({ hooks: {}, onFailure: {}, disableAllHooks: false });
    expect(validateOptions(CommandHooksOptions, written)).toMatchObject({ ok: true, ignored: [] });
  });

  it("a project's settings that load command-hooks with a hook: not run while untrusted, run once trusted", async () => {
    const m = setup({});
    const marker = join(m.outside, 'hook-ran');
    writeFileSync(
      join(m.project, '.airlockrc.json'),
      JSON.stringify({ extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PreToolUse', undefined, `touch ${marker}; echo project hook says no >&2; exit 2`) } }] }),
    );
    const untrusted = await m.open();
    const r = await m.call(untrusted, 'bash', { command: 'echo ran' });
    expect(r).toMatchObject({ outcome: 'ok', text: expect.stringContaining('ran') });
    expect(existsSync(marker)).toBe(false);
    // The same settings in a trusted project do run (so the check above can fail).
    const trusted = await m.open({ trust: true, settings: { sandbox: { mode: 'off' } } });
    const t = await m.call(trusted, 'bash', { command: 'echo ran' });
    expect(t.outcome).toBe('denied');
    expect(t.text).toContain('project hook says no');
    expect(existsSync(marker)).toBe(true);
  });
});

describe.skipIf(!bwrapWorks)('hooks run inside the OS sandbox', () => {
  const hook = (m: { outside: string; project: string }) => `echo pwned > ${m.outside}/pwned.txt; echo here > "$CLAUDE_PROJECT_DIR/inside.txt"; exit 0`;

  it('a hook cannot write outside the project (it ran: its write inside the project landed)', async () => {
    const m = setup({});
    const m2 = setup({});
    // The hook names this machine's folders, so the settings are written after the folders exist.
    writeFileSync(join(m.config, 'settings.json'), JSON.stringify({ permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PreToolUse', 'Bash', hook(m)) } }] }));
    const host = await m.open();
    expect(host.sandbox.service.status.active).toBe(true);
    expect(await m.call(host, 'bash', { command: 'echo ok' })).toMatchObject({ outcome: 'ok' });
    expect(existsSync(join(m.project, 'inside.txt'))).toBe(true);
    expect(existsSync(join(m.outside, 'pwned.txt'))).toBe(false);
    // Without the sandbox the same hook writes there: the check above is the sandbox's doing.
    writeFileSync(join(m2.config, 'settings.json'), JSON.stringify({ sandbox: { mode: 'off' }, permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PreToolUse', 'Bash', hook(m2)) } }] }));
    const open = await m2.open();
    await m2.call(open, 'bash', { command: 'echo ok' });
    expect(existsSync(join(m2.outside, 'pwned.txt'))).toBe(true);
  });
});

describe('sandbox.mode "required" without a sandbox', () => {
  it('refuses to run the hook, and the call is denied (fail closed)', async () => {
    const m = setup({});
    const marker = join(m.outside, 'hook-ran');
    writeFileSync(
      join(m.config, 'settings.json'),
      JSON.stringify({ sandbox: { mode: 'required' }, permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PreToolUse', 'Bash', `touch ${marker}`) } }] }),
    );
    const host = await m.open({ sandboxProgram: join(m.base, 'no-such-bwrap') });
    expect(host.sandbox.service.status.active).toBe(false);
    const r = await m.call(host, 'bash', { command: 'echo ran' });
    expect(r.outcome).toBe('denied');
    expect(r.text).toContain('"required"');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a pasted block with what Airlock does not run', () => {
  it('a handler type other than command, or a field such as "if", is an error naming it', () => {
    const http = validateOptions(CommandHooksOptions, { hooks: { PreToolUse: [{ hooks: [{ type: 'http', url: 'https://x.test' }] }] } });
    expect(http.ok).toBe(false);
    const withIf = validateOptions(CommandHooksOptions, { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'x', if: 'Bash(rm *)' }] }] } });
    expect(withIf.ok).toBe(false);
    expect(!withIf.ok && withIf.errors.join('\n')).toContain('"if"');
  });
});

describe.skipIf(!bwrapWorks)('a hook command reaches no Unix socket', () => {
  it('its own listeners outside the project and every socket the machine shows are refused to a hook (seccomp), while the same hook reaches them without the sandbox', async () => {
    for (const mode of ['auto', 'off'] as const) {
      const m = setup({});
      const listeners = await socketListeners([m.outside, m.home]);
      try {
        const paths = mode === 'off' ? listeners.paths : [...new Set([...listeners.paths, ...visibleSocketFiles({ home: m.home })])];
        const probe = writeReachProbe(m.project, paths);
        const answers = join(m.project, 'answers.json');
        const command = `${probe.argv.map((a) => `'${a}'`).join(' ')} > '${answers}'; exit 0`;
        writeFileSync(join(m.config, 'settings.json'), JSON.stringify({ sandbox: { mode }, permissions: { allow: ['bash(*)'] }, extensions: [{ name: '@airlock/command-hooks', options: { hooks: on('PreToolUse', 'Bash', command) } }] }));
        const host = await m.open();
        expect(await m.call(host, 'bash', { command: 'echo ok' })).toMatchObject({ outcome: 'ok' });
        const got = JSON.parse(readFileSync(answers, 'utf8')) as Record<string, string>;
        for (const path of paths) expect(got[path], `${mode}: ${path}`).toBe(mode === 'off' ? 'connected' : 'EPERM');
        // A connection is counted when the listener's accept runs, which may come after the answer.
        await vi.waitFor(() => expect(listeners.accepted()).toBe(mode === 'off' ? paths.length : 0));
      } finally {
        await listeners.close();
      }
    }
  });
});

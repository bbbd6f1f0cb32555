import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extensionPackage, ROOT, runProgram, sandbox, type Run } from './harness.js';
import { CTRL_C, inPty } from './pty.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 11, "The CLI as a person meets it": what a newcomer saw at the terminal, through the real
 * binary. Each test failed before its fix.
 */

/** Runs `airlock` the way a shell does: found by name on PATH (the clone's bin/ folder). */
function airlockOnPath(s: ReturnType<typeof sandbox>, args: string[]): Promise<Run> {
  const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), NO_COLOR: '1', PATH: `${join(ROOT, 'bin')}:${process.env.PATH ?? ''}` };
  return runProgram('airlock', args, { cwd: s.project, env });
}

/** How often `text` occurs in `haystack`. */
function occurrences(haystack: string, text: string): number {
  return haystack.split(text).length - 1;
}

describe('a runnable bin', () => {
  it('`airlock` on PATH runs the built CLI: the result alone on stdout, no build or pnpm lines', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'one\ntwo\n');
    const r = await airlockOnPath(s, ['call', 'read', '{"path":"notes.txt"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('one\ntwo\n');
    expect(r.stderr).toMatch(/^airlock: read \(call_1\) → ok in [\d.]+ ms\n$/);
  });
});

describe('call bash: live output on a terminal, the result alone on a pipe', { timeout: scaledMs(60_000) }, () => {
  it('on a terminal, the first line shows while the command still runs', async () => {
    const s = sandbox();
    // A secret in the live output is redacted as in the result: partial results pass the redact phase.
    const token = 'ghp_0123456789abcdefABCDEF0123456789abcd';
    const command = `echo ${token}; echo first-line; sleep 6; echo last-line`;
    // Before, nothing showed until the command ended (about 6 s): the first expect timed out.
    const { exitCode, transcript, raw } = await inPty(s, ['call', 'bash', JSON.stringify({ command })], [
      { expect: 'first-line', timeout: 4 },
      // last-line may or may not be streamed before the command exits (the update throttle can hold
      // it), so it is only required in the result below.
      { expect: 'the result, as the model sees it' },
      { expect: 'first-line\r?\nlast-line' },
      { expect: 'bash \\(call_1\\) → ok' },
    ]);
    expect(exitCode, transcript).toBe(0);
    expect(raw).not.toContain(token);
    expect(transcript).toContain('[REDACTED:github-token#1]\nfirst-line');
  });

  it('on a pipe, stdout is the result byte for byte and stderr only the status line', async () => {
    const s = sandbox();
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command: 'echo alpha; echo beta >&2' })]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('alpha\nbeta\n');
    expect(r.stderr).not.toContain('alpha');
    expect(r.stderr).not.toContain('the result, as the model sees it');
  });
});

describe('batch: each result labelled with its call', () => {
  it('separates the results, each under its position, tool and id, and counts the outcomes', async () => {
    const s = sandbox();
    s.write('project/a.txt', 'alpha\n');
    s.write('project/b.txt', 'beta\n');
    s.write('project/batch.json', [
      { id: 'first', name: 'read', arguments: { path: 'a.txt' } },
      { name: 'read', arguments: { path: 'b.txt' } },
      { id: 'third', name: 'nope', arguments: {} },
    ]);
    const r = await s.airlock(['batch', 'batch.json']);
    expect(r.code).toBe(1);
    const [one, two, three] = r.stdout.split('\n\n');
    expect(one).toBe('── [1/3] read (first) → ok ──\nalpha');
    expect(two).toBe('── [2/3] read (call_2) → ok ──\nbeta');
    expect(three).toMatch(/^── \[3\/3\] nope \(third\) → not found ──\nTool "nope" not found/);
    expect(r.stderr).toMatch(/airlock: batch of 3 calls: 2 ok, 1 not found in [\d.]+ ms\n$/);
  });
});

describe('load warnings a person can read', () => {
  it("an untrusted project's seven extensions: one warning naming all seven, one Fix line", async () => {
    const s = sandbox();
    const tools = ['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls'].map((t) => `@airlock/tool-${t}`);
    s.write('project/.airlockrc.json', { extensions: tools });
    s.write('project/notes.txt', 'hi\n');
    const r = await s.airlock(['--no-trust', 'call', 'ls', '{}']);
    expect(occurrences(r.stderr, 'not trusted')).toBe(1);
    expect(occurrences(r.stderr, 'Fix:')).toBe(1);
    expect(r.stderr).toContain(`7 project extensions were not loaded, because the project folder ${s.project} is not trusted`);
    for (const name of tools) expect(r.stderr).toContain(name);
    expect(r.stderr).toContain(`Fix: review the project, then run \`airlock trust ${s.project}\``);
  });

  it('a rule whose example fails: the fix is the rule, said once; never "remove @airlock/path-policy"', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', { permissions: { deny: [{ match: 'read(**/*.secret)', examples: { match: ['read(a.txt)'] } }] } });
    s.write('project/a.txt', 'a\n');
    const r = await s.airlock(['call', 'read', '{"path":"a.txt"}']);
    expect(r.code).toBe(1);
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toContain('remove "@airlock/path-policy"');
      expect(out).toContain('correct the pattern or the example of the rule at permissions.deny[0]');
    }
    expect(occurrences(r.stderr, 'Fix:')).toBe(1);
    expect(r.stderr).not.toMatch(/Fix the pattern or the example\.\s*\n?Fix:/);
    const listing = await s.airlock(['extensions']);
    expect(listing.stdout).toContain('NO TOOL WILL RUN');
    expect(occurrences(listing.stdout.toLowerCase(), 'fix:')).toBe(1);
    const test = await s.airlock(['policy', 'test']);
    expect(test.stdout).toContain('1 rule, 1 with examples, 1 failing');
  });

  it('a failing setup: no stack by default, with a hint; --verbose prints the stack, naming the file that threw', async () => {
    const s = sandbox();
    extensionPackage(s, 'project/thrower', {
      name: 'thrower',
      source: "export default { name: 'thrower', setup() { helperThatThrows(); } };\nfunction helperThatThrows() { throw new Error('the database is not configured'); }\n",
    });
    s.write('project/.airlockrc.json', { extensions: ['./thrower'] });
    s.write('project/a.txt', 'a\n');
    const plain = await s.airlock(['--trust', 'call', 'read', '{"path":"a.txt"}']);
    expect(plain.stderr).toContain('failed in setup: the database is not configured');
    expect(plain.stderr).toContain('run again with --verbose');
    expect(plain.stderr).not.toContain('helperThatThrows');
    const verbose = await s.airlock(['--trust', '--verbose', 'call', 'read', '{"path":"a.txt"}']);
    expect(verbose.stderr).toMatch(/at helperThatThrows \(.*thrower[/\\]src[/\\]index\.ts/);
  });

  it('a module with no default export is told the documented form, not an undocumented defineExtension', async () => {
    const s = sandbox();
    extensionPackage(s, 'project/bare', { name: 'bare', source: 'export const name = "bare";\n' });
    s.write('project/.airlockrc.json', { extensions: ['./bare'] });
    const r = await s.airlock(['--trust', 'extensions']);
    expect(r.stdout + r.stderr).not.toContain('defineExtension');
    expect(r.stdout + r.stderr).toContain('satisfies Extension<typeof Options>');
  });
});

describe('the trust question in a terminal', { timeout: scaledMs(60_000) }, () => {
  it('has one title, naming the folder', async () => {
    const s = sandbox();
    extensionPackage(s, 'project/ext', { name: 'ext', source: "export default { name: 'ext', setup() {} };\n" });
    s.write('project/.airlockrc.json', { extensions: ['./ext'] });
    const { transcript } = await inPty(s, ['tools'], [{ expect: 'Trust the project folder' }, { send: CTRL_C }], {}, { trust: false });
    expect(occurrences(transcript, 'project folder')).toBeGreaterThanOrEqual(1);
    expect(transcript).not.toContain('Trust this project folder?');
    expect(occurrences(transcript, `Trust the project folder ${s.project}?`)).toBe(1);
  });
});

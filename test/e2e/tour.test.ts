import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox, type Run } from './harness.js';
import { ENTER, inPty } from './pty.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * `airlock run --demo` through the real binary: the tour plays examples/tour/tour.jsonl in a
 * sandbox project, with no key and no network. Every outcome the script's text claims is checked
 * against what really happened: the results the model got, the files on disk, and the bytes of
 * the transcript and the audit log.
 */

const exec = promisify(execFile);
const sh = (command: string, options: { env: NodeJS.ProcessEnv; cwd: string }) => exec('sh', ['-c', command], options);
type Line = Record<string, any>;
const jsonl = (text: string): Line[] => text.trim().split('\n').map((l) => JSON.parse(l) as Line);
const textOf = (m: Line): string => (m.content as Line[]).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** The path a closing line names ("The transcript:  /…"). */
function named(stdout: string, label: string): string {
  const m = new RegExp(`^${label}\\s+(\\S+)`, 'm').exec(stdout);
  expect(m, stdout).not.toBeNull();
  return m![1]!;
}

/** The planted secrets, read from the project the tour made (what must never show anywhere). */
function secretsOf(project: string): string[] {
  const token = /ghp_\w+/.exec(readFileSync(join(project, 'scripts/release.sh'), 'utf8'))![0];
  const env = readFileSync(join(project, '.env'), 'utf8')
    .split('\n')
    .filter((l) => /^\w+=/.test(l))
    .map((l) => l.slice(l.indexOf('=') + 1));
  expect(env.length).toBeGreaterThan(0);
  return [token, ...env];
}

/** Each call's result and the arguments it was made with, by call id, from the transcript. */
function callsOf(transcript: string): Map<string, { args: any; outcome: string; text: string }> {
  const messages = jsonl(readFileSync(transcript, 'utf8'))
    .filter((l) => l.type === 'message')
    .map((l) => l.message);
  const calls = new Map<string, { args: any; outcome: string; text: string }>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const b of m.content) if (b.type === 'toolCall') calls.set(b.id, { args: b.arguments, outcome: 'none', text: '' });
    if (m.role === 'toolResult') Object.assign(calls.get(m.toolCallId)!, { outcome: m.outcome, text: textOf(m) });
  }
  return calls;
}

describe('airlock run --demo', { timeout: scaledMs(90_000) }, () => {
  it('with no terminal: every step does what the tour says, the ask is denied, nothing secret leaks, the audit log verifies', async () => {
    const s = sandbox();
    const project = join(s.base, 'tour');
    const r = await s.airlock(['run', '--demo', '--demo-dir', project]);
    expect(r.code, r.stderr).toBe(0);
    expect(named(r.stdout, 'The project:')).toBe(project);
    // A call's arguments read as JSON once: a line break in them is \n, not \\n.
    expect(r.stdout).toContain('→ write {"path":"CHANGELOG.md","content":"# Changelog\\n\\n## Unreleased');
    const transcript = named(r.stdout, 'The transcript:');
    const audit = named(r.stdout, 'The audit log:');
    expect(transcript.startsWith(join(s.home, '.local/state/airlock/sessions/'))).toBe(true);
    expect(audit).toMatch(new RegExp(`^${join(s.home, '.local/state/airlock/audit/')}tour-[0-9a-f]+/audit\\.jsonl$`));

    const calls = callsOf(transcript);
    const outcomes = Object.fromEntries([...calls].map(([id, c]) => [id, c.outcome]));
    expect(outcomes).toEqual({
      call_1_1: 'ok', call_1_2: 'ok', call_1_3: 'ok', call_1_4: 'ok', // ls, read, find, grep: one batch
      call_2_1: 'error', // the failing test run
      call_3_1: 'ok', // the spill file read back
      call_4_1: 'ok', // the edit
      call_5_1: 'ok', call_5_2: 'ok', // the tests again, CHANGELOG.md
      call_6_1: 'denied', // .env
      call_7_1: 'ok', // the release dry run, its token redacted
      call_8_1: 'denied', // the hook: an ask nobody could answer
    });
    // Every built-in tool ran at least once and ended ok.
    const toolsOk = new Set([...calls].filter(([, c]) => c.outcome === 'ok').map(([id]) => id));
    const names = jsonl(readFileSync(transcript, 'utf8'))
      .filter((l) => l.type === 'message' && l.message.role === 'toolResult' && toolsOk.has(l.message.toolCallId))
      .map((l) => l.message.toolName);
    expect(new Set(names)).toEqual(new Set(['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls']));

    // Truncation: the test run was cut, its notice named a spill file, and the next call read that very file.
    const run = calls.get('call_2_1')!;
    expect(run.text).toContain('2501 passed, 1 failed');
    expect(run.text).toContain('Command exited with code 1');
    expect(run.text).not.toContain('FAIL 1');
    const spill = /Full output: (.+?)\]/.exec(run.text)![1]!;
    expect(calls.get('call_3_1')!.args).toEqual({ path: spill, limit: 3 });
    expect(calls.get('call_3_1')!.text.split('\n')[0]).toBe('FAIL 1 total() with a 10% discount: expected 900, got 1100');

    // The edit is on disk, and the second run passed.
    const cart = readFileSync(join(project, 'src/cart.js'), 'utf8');
    expect(cart).toContain('return sub - off;');
    expect(cart).not.toContain('return sub + off;');
    expect(calls.get('call_5_1')!.text).toContain('2502 passed, 0 failed');
    expect(readFileSync(join(project, 'CHANGELOG.md'), 'utf8')).toContain('total() subtracts the discount');

    // .env: denied by the default the text names.
    expect(calls.get('call_6_1')!.text).toMatch(/well-known secret file.*default:secret-read/s);
    // The token: replaced by the placeholder the text quotes.
    expect(calls.get('call_7_1')!.text).toContain('authenticating to api.github.com with [REDACTED:github-token#1]');
    // The ask: denied with nobody to ask; nothing written; the closing text says what came back.
    expect(calls.get('call_8_1')!.text).toMatch(/Asked because: writing .*\.git\/hooks\/pre-commit.*nobody can be asked here/s);
    expect(existsSync(join(project, '.git/hooks/pre-commit'))).toBe(false);
    expect(r.stdout).toContain('model › The hook write came back: denied.');

    // No secret in anything a person or a program sees or keeps.
    const kept = [r.stdout, r.stderr, readFileSync(transcript, 'utf8'), readFileSync(audit, 'utf8')];
    for (const secret of secretsOf(project)) for (const bytes of kept) expect(bytes).not.toContain(secret);
    expect(r.stdout).toContain('[REDACTED:github-token#1]');

    // Every call went through the audit log, with the outcome the model got.
    const logged = jsonl(readFileSync(audit, 'utf8')).filter((rec) => rec.type === 'result');
    expect(Object.fromEntries(logged.map((rec) => [rec.toolCallId, rec.outcome]))).toEqual(outcomes);

    // What the person reads: the cut run's summary, notice and exit code under its status line.
    const shown = r.stdout.slice(r.stdout.indexOf('bash (call_2_1) → error'), r.stdout.indexOf('read (call_3_1)'));
    for (const line of ['2501 passed, 1 failed', `Full output: ${spill}]`, 'Command exited with code 1']) expect(shown).toContain(line);
    expect(r.stdout).toContain('The project:     ' + project + ' (left in place');

    // The printed replay command works on the recorded session.
    const replay = /Replay the session against today's policy:\s+airlock (.+)$/m.exec(r.stdout)![1]!.split(' ');
    const replayed = await s.airlock(replay);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(/of 12 recorded calls/);

    // The printed command verifies the log.
    const verify = /Verify its hash chain:\s+airlock (audit verify \S+)$/m.exec(r.stdout)![1]!.split(' ');
    expect(verify).toEqual(['audit', 'verify', audit]);
    const verified = await s.airlock(verify);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^intact: \d+ records/);
  });

  it('--json streams the events (the first batch starts all four calls before one ends); the project goes to a new temp folder when no --demo-dir; the printed commands paste into a shell', async () => {
    const s = sandbox();
    // A space in the temp folder: the printed commands must still be one argument per path.
    const tmp = s.write('tmp dir/.keep', '').replace(/\/\.keep$/, '');
    const r: Run = await s.airlock(['run', '--demo', '--json'], { env: { TMPDIR: tmp } });
    expect(r.code, r.stderr).toBe(0);
    const events = jsonl(r.stdout);
    expect(events[0]!.type).toBe('agent_start');
    expect(events.at(-1)!.result.status).toBe('done');
    const firstTurn = events.filter((e) => e.turnId?.endsWith(':1') && (e.type === 'tool_execution_start' || e.type === 'tool_execution_end')).map((e) => e.type);
    expect(firstTurn).toEqual(['tool_execution_start', 'tool_execution_start', 'tool_execution_start', 'tool_execution_start', ...Array(4).fill('tool_execution_end')]);
    // The closing notes go to stderr with --json; the project is a new folder under TMPDIR, left in place.
    const project = /^The project:\s+(.+) \(left in place/m.exec(r.stderr)![1]!;
    expect(project.startsWith(join(tmp, 'airlock-tour-'))).toBe(true);
    expect(readFileSync(join(project, 'src/cart.js'), 'utf8')).toContain('return sub - off;');
    // As a person pastes them: through a shell, with bin/airlock on PATH.
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), PATH: `${join(ROOT, 'bin')}:${process.env.PATH}` };
    for (const label of ['Verify its hash chain:', "Replay the session against today's policy:"]) {
      const command = new RegExp(`^${label}\\s+(airlock .+)$`, 'm').exec(r.stderr)![1]!;
      const { stdout } = await sh(command, { env, cwd: s.project });
      expect(stdout).toMatch(label.startsWith('Verify') ? /^intact: \d+ records/ : /of 12 recorded calls/);
    }
  });

  it('on a terminal the ask is put to the person; "Allow once" lets the hook be written', async () => {
    const s = sandbox();
    const project = join(s.base, 'tour');
    const out = await inPty(
      s,
      ['run', '--demo', '--demo-dir', project],
      [{ expect: 'Allow write\\?', timeout: 40 }, { expect: 'default:executable-config' }, { expect: 'Allow once' }, { send: ENTER }, { expect: 'The hook write came back: ok' }, { expect: 'Verify its hash chain' }],
      {},
      { trust: false },
    );
    expect(out.exitCode, out.transcript).toBe(0);
    expect(readFileSync(join(project, '.git/hooks/pre-commit'), 'utf8')).toMatch(/^#!\/bin\/sh\n.*node test\/run\.js/s);
    expect(out.transcript).toContain('When Airlock asks you about a call, your answer decides it.');
  });

  it('usage errors say what to do: --demo with -p or --model, a --demo-dir that is not empty, --demo-dir alone', async () => {
    const s = sandbox();
    const withPrompt = await s.airlock(['run', '--demo', '-p', 'hi', '--model', 'scripted:x.jsonl']);
    expect([withPrompt.code, withPrompt.stderr]).toEqual([2, expect.stringMatching(/--demo plays the tour's own script.*does not take -p, --model/)]);
    s.write('project/full/keep.txt', 'mine\n');
    const full = await s.airlock(['run', '--demo', '--demo-dir', 'full']);
    expect([full.code, full.stderr]).toEqual([2, expect.stringMatching(/--demo-dir .*full is not an empty folder.*Give a new or empty folder/s)]);
    const file = await s.airlock(['run', '--demo', '--demo-dir', 'full/keep.txt']);
    expect([file.code, file.stderr]).toEqual([2, expect.stringMatching(/keep\.txt is not an empty folder/)]);
    const unwritable = await s.airlock(['run', '--demo', '--demo-dir', 'full/keep.txt/inside']);
    expect([unwritable.code, unwritable.stderr]).toEqual([2, expect.stringMatching(/The tour's project cannot be made in .*inside: .*\nGive --demo-dir a folder you can write to/)]);
    expect(readFileSync(join(s.project, 'full/keep.txt'), 'utf8')).toBe('mine\n');
    const alone = await s.airlock(['run', '--demo-dir', 'x', '-p', 'hi', '--model', 'scripted:x.jsonl']);
    expect([alone.code, alone.stderr]).toEqual([2, expect.stringMatching(/--demo-dir goes with --demo/)]);
  });
});

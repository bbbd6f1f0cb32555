import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HOSTILE_SEQUENCES, rawHostile } from '@airlock/kernel/testing';
import { BIN, ROOT, sandbox } from './harness.js';

const run = promisify(execFile);
/** The host's pseudo-terminal driver: Python's pty module, typing like a person. */
const PTY = join(ROOT, 'packages/host/test/ui/fixtures/pty-run.py');

export const DOWN = '\u001b[B';
export const ENTER = '\r';
export const CTRL_C = '\u0003';

/** An `expect` waits up to its own `timeout` (seconds) when given, else the run's. */
export type Step = { expect: string; timeout?: number } | { send: string } | { sleep: number };

export interface PtyOutcome {
  exitCode: number | null;
  /** What the terminal was sent, with the ANSI sequences the driver recognises removed, CR LF as LF. */
  transcript: string;
  /** Every character the terminal was sent, as sent. */
  raw: string;
}

/**
 * Runs the real `airlock` binary under a pseudo-terminal in the sandbox's project folder (its home,
 * no colours), typing `steps` like a person. Rejects when an expected text does not show.
 */
export async function inPty(s: ReturnType<typeof sandbox>, args: string[], steps: Step[], env: Record<string, string> = {}, options: { trust?: boolean } = {}): Promise<PtyOutcome> {
  const vars = { HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), NO_COLOR: '1', PATH: process.env.PATH ?? '', ...env };
  // --trust unless a test is about the trust question itself.
  const trust = options.trust === false ? [] : ['--trust'];
  const argv = ['env', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), process.execPath, BIN, ...trust, ...args];
  // Wide enough that the prompt library does not wrap the lines a test looks for.
  const spec = { argv, cwd: s.project, steps, timeout: 20, cols: 250 };
  const { stdout } = await run('python3', [PTY, JSON.stringify(spec)], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  const outcome = JSON.parse(stdout) as { exitCode: number | null; transcript: string; raw: string; error: string | null };
  if (outcome.error) throw new Error(`${outcome.error}\n--- transcript ---\n${outcome.transcript}`);
  return { exitCode: outcome.exitCode, transcript: outcome.transcript.replace(/\r\n/g, '\n'), raw: outcome.raw };
}

/**
 * A project whose policy asks about every bash call (a small authorize extension standing in for
 * path-policy's defaults), with the real approval extension and bash tool.
 */
export function askingProject() {
  const s = sandbox();
  s.write('project/asker/package.json', {
    name: 'asker',
    version: '1.0.0',
    type: 'module',
    airlock: { extension: './index.ts', kernel: '^1.0.0', provides: { tools: [], hooks: ['tool_call:authorize'] } },
  });
  s.write(
    'project/asker/index.ts',
    `export default { name: 'asker', setup(api) {
      api.on('tool_call', (e) => e.toolName === 'bash' ? { effect: 'ask', rule: 'default:exec', reason: 'commands need a yes' } : undefined, { name: 'ask-bash', phase: 'authorize' });
    } };\n`,
  );
  s.write('project/.airlockrc.json', { extensions: [{ path: './asker' }, '@airlock/approval', '@airlock/tool-bash'] });
  return s;
}

/**
 * What a terminal was sent, with the sequences the prompt library and Airlock's own drawing use
 * taken out (cursor moves, erasing, showing and hiding the cursor, colours): what is left must
 * hold no character a terminal obeys or hides but the line ends (and tabs, with `tabs`, where a
 * tool's output is on screen). Checks first that none of the
 * hostile sequences arrived whole, since their shape is the same as the library's.
 *
 * @example expect(rawLeft(outcome.raw)).toEqual([]);
 */
export function rawLeft(raw: string, options: { tabs?: boolean } = {}): string[] {
  const whole = HOSTILE_SEQUENCES.filter((s) => raw.includes(s.text)).map((s) => `${s.name} arrived whole`);
  const own = raw.replace(/\u001b\[\??[0-9;]*[A-HJKSTfhlmG]/g, '');
  // A tool's own output keeps its tabs (its columns); Airlock's lines never carry one.
  return [...whole, ...rawHostile(options.tabs === true ? own.replace(/\t/g, ' ') : own, { lines: true, crlf: true })];
}

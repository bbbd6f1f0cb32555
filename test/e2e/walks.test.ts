import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapWorks, scaledMs } from '@airlock/kernel/testing';
import { extensionPackage, sandbox, BIN } from './harness.js';

/**
 * Issue 24 §2: one command made the project unusable. A folder 2,100 levels deep made every later
 * bash, find and grep call hang with no answer, even with --timeout-ms 10000, and a tree of
 * 200,000 files took seconds of synchronous work per call. Every call now answers within its
 * limit, through the real CLI, with a result that says what happened and what to do. And when
 * the main thread is stuck anyway (an extension's loop), the watchdog still ends the call.
 */

const sandboxed = bubblewrapWorks();
/** Generous, and scaled with the machine's load: what the trial found was "no answer at all"; these answer in seconds. */
const ANSWERS_WITHIN = scaledMs(60_000);

function spawnable(program: string): boolean {
  try {
    execFileSync(program, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

type Machine = ReturnType<typeof sandbox>;

/** Remove a machine whose tree Node's rm cannot (paths past PATH_MAX): rm works relative to folders. */
function removeDeep(s: Machine | undefined): void {
  if (s !== undefined) execFileSync('rm', ['-rf', s.base]);
}

async function call(s: Machine, tool: string, args: object, extra: string[] = []) {
  const started = Date.now();
  const r = await s.airlock(['call', tool, JSON.stringify(args), ...extra]);
  return { ...r, ms: Date.now() - started };
}

describe('a folder 2,100 levels deep, made by a command', () => {
  let s: Machine;
  let made: Awaited<ReturnType<typeof call>>;
  beforeAll(async () => {
    s = sandbox();
    s.write('project/a.txt', 'needle\n');
    // The trial's attack, as the model would send it: each level is made relative to the last,
    // so no path is ever longer than one name (Python with directory fds did the same).
    const script = "const fs = require('fs'); for (let i = 0; i < 2100; i++) { fs.mkdirSync('d'); process.chdir('d'); } fs.writeFileSync('deep.txt', 'needle');";
    made = await call(s, 'bash', { command: `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}` });
  }, ANSWERS_WITHIN);
  afterAll(() => removeDeep(s));

  it('the command itself runs, and is told the check afterwards could not finish', () => {
    expect(made.code).toBe(0);
    if (sandboxed) expect(made.stdout).toMatch(/\[sandbox\] Could not check everything the command created: .*is more than 128 levels below the workspace root/);
  });

  it.each([[['--timeout-ms', '10000']], [[]]])('bash answers at once (%j): nothing runs, and the message names the folder and what to do', async (extra) => {
    const r = await call(s, 'bash', { command: 'echo ran' }, extra);
    expect(r.ms).toBeLessThan(ANSWERS_WITHIN);
    if (!sandboxed) return void expect(r.stdout).toContain('ran');
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('ran');
    expect(r.stdout).toContain(`is more than 128 levels below the workspace root ${s.project}`);
    expect(r.stdout).toContain('Remove or move that folder tree from outside the agent');
    expect(r.stderr).toMatch(/bash \(call_1\) → error/);
  });

  it('find lists what it can reach and says which folder it did not enter', async () => {
    const r = await call(s, 'find', { pattern: '*.txt' }, ['--timeout-ms', '10000']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('a.txt');
    expect(r.stdout).toMatch(/\[1 folder more than 128 levels below the search folder was not entered \(d\/d\/d/);
  });

  // With path-policy's per-file rules grep searches in-process (no rg, so no sandbox to set up).
  it('grep answers with the matches it can reach', async () => {
    const r = await call(s, 'grep', { pattern: 'needle' }, ['--timeout-ms', '10000']);
    expect(r.ms).toBeLessThan(ANSWERS_WITHIN);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('a.txt:1: needle');
  });

  it('ls and read work as ever', async () => {
    const ls = await call(s, 'ls', {});
    expect(ls.stdout).toContain('d/');
    const read = await call(s, 'read', { path: 'a.txt' });
    expect(read.stdout).toContain('needle');
  });
});

describe('a tree of 200,000 files', () => {
  let s: Machine;
  beforeAll(() => {
    s = sandbox();
    // 200 folders of 1,000 empty files, made in one process: Python makes them in a few seconds,
    // Node (one call per file) takes a minute on a busy machine.
    const python = "import os,sys\nroot=sys.argv[1]\nfor d in range(200):\n p=os.path.join(root,'d%03d'%d); os.mkdir(p); fd=os.open(p,os.O_RDONLY)\n for f in range(1000): os.close(os.open('f%04d.txt'%f, os.O_CREAT|os.O_WRONLY, 0o644, dir_fd=fd))\n os.close(fd)\n";
    if (spawnable('python3')) execFileSync('python3', ['-c', python, s.project]);
    else execFileSync('bash', ['-c', 'cd "$1" && for d in $(seq -w 0 199); do mkdir d$d && (cd d$d && seq -f "f%04g.txt" 0 999 | xargs touch); done', 'make', s.project]);
    s.write('project/d100/f0500.txt', 'needle\n');
  }, scaledMs(120_000));
  afterAll(() => removeDeep(s));

  it('bash answers: the walk stops at its bound and says where, or runs without a sandbox', async () => {
    const r = await call(s, 'bash', { command: 'echo ran' }, ['--timeout-ms', '10000']);
    expect(r.ms).toBeLessThan(ANSWERS_WITHIN);
    if (!sandboxed) return void expect(r.stdout).toContain('ran');
    expect(r.code).toBe(1);
    // On a loaded machine the walk may not reach its bound within the call's 10 s: then the
    // call's time limit answers, saying so. Either way nothing ran and the model is told why.
    if (/ran longer than (its )?10000 ms/.test(r.stdout)) return;
    expect(r.stdout).toContain('the workspace has more than 200000 files and folders to check for secrets');
    expect(r.stdout).toMatch(/The biggest folder at the top of the workspace is .*\/d\d{3} \(1000 of them\)/);
  });

  it('find, grep, ls and read answer within their limit with a result that says what happened', async () => {
    const find = await call(s, 'find', { pattern: 'f0500.txt', limit: 5 }, ['--timeout-ms', '30000']);
    expect(find.stdout).toMatch(/d000\/f0500\.txt[\s\S]*\[5 results limit reached/);
    const grep = await call(s, 'grep', { pattern: 'needle' }, ['--timeout-ms', '30000']);
    expect(grep.ms).toBeLessThan(ANSWERS_WITHIN);
    expect(grep.stdout).toMatch(/d100\/f0500\.txt:1: needle|ran longer than 30000 ms/);
    const ls = await call(s, 'ls', { path: 'd007' });
    expect(ls.stdout).toContain('[500 entries limit reached');
    const read = await call(s, 'read', { path: 'd100/f0500.txt' });
    expect(read.stdout).toContain('needle');
    // find and grep may each take their 30 s limit on a loaded machine; the test waits for that.
  }, scaledMs(90_000));
});

/** A tool that starts a process, then never hands the main thread back. */
const spinner = `import Type from 'typebox';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
export default {
  name: 'spinner',
  options: Type.Object({}),
  setup(api) {
    api.registerTool({
      name: 'spin', label: 'Spin', description: 'Start a child, then loop for ever.',
      parameters: Type.Object({}),
      async execute(_id, _params, _signal, _update, ctx) {
        const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
        writeFileSync(ctx.cwd + '/child.pid', String(child.pid));
        for (;;) {}
      },
    });
  },
};
`;

/** Whether a process is gone (or a zombie nobody reaped: it holds nothing and runs nothing). */
function gone(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}

describe.skipIf(!spawnable('bash') || process.platform !== 'linux')('the watchdog, when the main thread is stuck', () => {
  function stuck() {
    const s = sandbox();
    const ext = extensionPackage(s, 'exts/spinner', { name: 'spinner', source: spinner });
    s.write('exts/spinner/package.json', { name: 'spinner', version: '0.1.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['spin'], hooks: [] } } });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: ext }] });
    return s;
  }

  /** The real binary in a process group of its own, as a shell runs a command: its exit, and the signal that ended it. */
  function start(s: Machine, args: string[]) {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: s.project, env: { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), NO_COLOR: '1' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    const ended = new Promise<{ signal: NodeJS.Signals | null; stderr: string; ms: number }>((resolve) => {
      const started = Date.now();
      child.on('close', (_code, signal) => resolve({ signal, stderr, ms: Date.now() - started }));
    });
    return { child, ended };
  }

  it('--timeout-ms is kept: the process and what it started end, with a message saying why', async () => {
    const s = stuck();
    const { ended } = start(s, ['call', 'spin', '{}', '--timeout-ms', '1000']);
    const r = await ended;
    expect(r.signal).toBe('SIGKILL');
    expect(r.stderr).toContain('airlock: the call spin (call_1) passed its time limit, and Airlock has not answered');
    expect(r.stderr).toContain('exit status 137');
    // 1 s limit + the kernel's 2 s grace + 1 s margin, counted in whole seconds: well under a minute.
    expect(r.ms).toBeLessThan(ANSWERS_WITHIN);
    expect(gone(Number(readFileSync(join(s.project, 'child.pid'), 'utf8')))).toBe(true);
  }, scaledMs(90_000));

  it('SIGTERM to the process group (what `timeout` and a shell send) is kept within seconds', async () => {
    const s = stuck();
    const { child, ended } = start(s, ['call', 'spin', '{}', '--timeout-ms', '600000']);
    for (let i = 0; i < 600 && !existsSync(join(s.project, 'child.pid')); i++) await new Promise((r) => setTimeout(r, 100));
    process.kill(-child.pid!, 'SIGTERM');
    const r = await ended;
    expect(r.signal).toBe('SIGKILL');
    expect(r.stderr).toContain('was interrupted (Ctrl-C or SIGTERM) 5 s ago, and Airlock has not answered');
    expect(r.ms).toBeLessThan(ANSWERS_WITHIN);
  }, scaledMs(90_000));

  it('a policy taking longer than the time limit to decide (waiting, not stuck) is left alone', async () => {
    const s = sandbox();
    const approver = `import Type from 'typebox';
export default {
  name: 'slow-approver',
  options: Type.Object({}),
  setup(api) {
    api.registerTool({ name: 'quick', label: 'Quick', description: 'Answer at once.', parameters: Type.Object({}), async execute() { return { content: [{ type: 'text', text: 'done' }] }; } });
    api.on('tool_call', async () => { await new Promise((r) => setTimeout(r, 7000)); return { effect: 'allow', reason: 'asked a server' }; }, { name: 'slow-approver/server', phase: 'authorize' });
  },
};
`;
    const ext = extensionPackage(s, 'exts/slow', { name: 'slow-approver', source: approver, hooks: ['tool_call:authorize'] });
    s.write('exts/slow/package.json', { name: 'slow-approver', version: '0.1.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['quick'], hooks: ['tool_call:authorize'] } } });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: ext }] });
    const { ended } = start(s, ['call', 'quick', '{}', '--timeout-ms', '1000']);
    const r = await ended;
    expect(r.stderr).not.toContain('Airlock has not answered');
    expect(r.signal).toBe(null);
    expect(r.stderr).toMatch(/quick \(call_1\) → ok/);
  }, scaledMs(90_000));

  it('a call that ends by itself leaves no watchdog behind, and a responsive Ctrl-C is the main thread\'s', async () => {
    const s = sandbox();
    const { child, ended } = start(s, ['call', 'bash', '{"command":"touch started; sleep 30"}']);
    for (let i = 0; i < 600 && !existsSync(join(s.project, 'started')); i++) await new Promise((r) => setTimeout(r, 100));
    process.kill(-child.pid!, 'SIGINT');
    const r = await ended;
    expect(r.signal).toBe(null);
    expect(r.stderr).toMatch(/bash \(call_1\) → aborted/);
    expect(r.stderr).not.toContain('Airlock has not answered');
  }, scaledMs(90_000));
});

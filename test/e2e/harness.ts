import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@airlock/kernel/testing';
import { skipUnlessNobodyCanReach } from '../../extensions/lib/tool-common/test/support/reachable.js';
import { copyCliForAnotherUser } from './cli-copy.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'packages/cli/bin/airlock.mjs');
export const HELLO = join(ROOT, 'examples/hello-tool');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run a program to its end with `stdin` (empty when not given), collecting what it prints. A
 * program killed by a signal ends with code -1.
 *
 * @example const r = await runProgram('bash', ['-c', 'echo hi'], { cwd: ROOT, env: process.env }); // { code: 0, stdout: 'hi\n', stderr: '' }
 */
export function runProgram(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; uid?: number }): Promise<Run> {
  const as = options.uid === undefined ? {} : { uid: options.uid, gid: options.uid };
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], ...as });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * A throw-away machine for one test: a project folder and a home folder of its own (XDG and HOME
 * point into it), so no test reads or writes the real user's settings or trust decisions.
 * Call it inside a test: the sandbox is removed when the test finishes.
 */
export function sandbox() {
  const base = makeTempDir('airlock-e2e-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1' };
  return {
    base,
    home,
    project,
    /** Write a file under the sandbox (path relative to its base), creating folders. */
    write(path: string, content: string | object): string {
      const file = join(base, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return file;
    },
    /**
     * Run the real `airlock` binary in the project folder. As another user when `uid` is given
     * (needs root): then a copy of the CLI that user can reach runs, not the one in the checkout.
     */
    airlock(args: string[], options: { stdin?: string; cwd?: string; uid?: number; env?: Record<string, string> } = {}): Promise<Run> {
      if (options.uid !== undefined) skipUnlessNobodyCanReach(base);
      const bin = options.uid === undefined ? BIN : copyCliForAnotherUser();
      return runProgram(process.execPath, [bin, ...args], {
        cwd: options.cwd ?? project,
        env: { ...env, ...options.env },
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        ...(options.uid === undefined ? {} : { uid: options.uid }),
      });
    },
  };
}

/** A minimal extension package written into the sandbox. */
export function extensionPackage(
  s: ReturnType<typeof sandbox>,
  dir: string,
  // `provides: false` leaves `provides` out of the manifest: a package whose kind cannot be read.
  o: { name: string; kernel?: string; source: string; hooks?: string[]; tools?: string[]; provides?: false },
): string {
  s.write(`${dir}/package.json`, {
    name: o.name,
    version: '0.1.0',
    type: 'module',
    airlock: { extension: './src/index.ts', kernel: o.kernel ?? '^1.0.0', ...(o.provides === false ? {} : { provides: { tools: o.tools ?? [], hooks: o.hooks ?? [] } }) },
  });
  s.write(`${dir}/src/index.ts`, o.source);
  return join(s.base, dir);
}

/**
 * A policy extension whose setup registers a deny handler and then throws ("rules file is
 * corrupt"), named with the hello tool in the user settings: a host that must fail closed.
 */
export function brokenPolicyMachine(s: ReturnType<typeof sandbox>): void {
  const policy = extensionPackage(s, 'exts/guard', {
    name: 'guard',
    hooks: ['tool_call:authorize'],
    source: `import type { Extension } from '@airlock/kernel';
export default {
  name: 'guard',
  setup(api) {
    api.on('tool_call', () => ({ effect: 'deny', reason: 'no' }), { name: 'guard/rules', phase: 'authorize' });
    throw new Error('rules file is corrupt');
  },
} satisfies Extension;
`,
  });
  s.write('home/.config/airlock/settings.json', { extensions: [{ path: HELLO }, { path: policy }] });
}

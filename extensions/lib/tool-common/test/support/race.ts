import { spawn } from 'node:child_process';
import { isAbsolute, relative } from 'node:path';
import { createKernel, type Kernel } from '@airlock/kernel';
import { type AnyAgentTool, type ToolResultMessage } from '@airlock/contract';

/**
 * The attacker of issue 19 §4: a real process that keeps swapping a name between two things
 * while the tools judge and open it, and a kernel whose policy refuses the secret side.
 */

/**
 * Swap `name` (inside `dir`) in a tight loop, in a child process:
 * - `links`: a symlink to `a`, then a symlink to `b` (each put in place by an atomic rename);
 * - `file-or-link`: the regular file `a` itself, then a symlink to `b`;
 * - `folder-or-link`: the real folder `a`, then a symlink to the folder `b`.
 * Returns once the child has started swapping; `stop()` ends it and waits, leaving `name` as it
 * was at the end of a round (`a` in place).
 */
export async function startSwapper(dir: string, name: string, mode: 'links' | 'file-or-link' | 'folder-or-link', a: string, b: string): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', SWAPPER, dir, name, mode, a, b], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', () => resolve());
  });
  return {
    async stop() {
      const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.end();
      await ended;
    },
  };
}

// Plain JavaScript for `node -e`: argv is [node, dir, name, mode, a, b]. It stops when its stdin closes.
const SWAPPER = `
const fs = require('node:fs');
const [dir, name, mode, a, b] = process.argv.slice(1);
process.chdir(dir);
let stop = false;
process.stdin.on('end', () => { stop = true; }).resume();
const quiet = (f) => { try { f(); } catch {} };
function round() {
  if (mode === 'links') {
    quiet(() => fs.symlinkSync(a, name + '.swap-a')); quiet(() => fs.renameSync(name + '.swap-a', name));
    quiet(() => fs.symlinkSync(b, name + '.swap-b')); quiet(() => fs.renameSync(name + '.swap-b', name));
  } else if (mode === 'file-or-link') {
    // a hard link keeps the real file's bytes while the name turns into a symlink and back
    quiet(() => fs.linkSync(a, name + '.swap-a')); quiet(() => fs.renameSync(name + '.swap-a', name));
    quiet(() => fs.symlinkSync(b, name + '.swap-b')); quiet(() => fs.renameSync(name + '.swap-b', name));
  } else {
    // a folder cannot be renamed over a symlink: move it aside, put the link, then back
    quiet(() => fs.renameSync(name, name + '.swap-dir'));
    quiet(() => fs.symlinkSync(b, name));
    quiet(() => fs.unlinkSync(name));
    quiet(() => fs.renameSync(name + '.swap-dir', name));
  }
}
process.stdout.write('ready\\n');
(function loop() {
  for (let i = 0; i < 200; i++) round();
  if (!stop) setImmediate(loop);
  else {
    if (mode !== 'folder-or-link') quiet(() => fs.unlinkSync(name));
    quiet(() => fs.rmSync(name + '.swap-a', { force: true })); quiet(() => fs.rmSync(name + '.swap-b', { force: true }));
    process.exit(0);
  }
})();
`;

/** Is `path` inside `root` (both real)? */
export function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * A kernel running `tools` in `workspace`, whose policy denies any file resource outside the
 * workspace or named `.env`: the decision the race tries to get around.
 */
export function guardedKernel(workspace: string, spill: string, ...tools: AnyAgentTool[]): Kernel {
  const kernel = createKernel({ cwd: workspace, spill: { dir: spill } });
  for (const tool of tools) kernel.registry.register(tool, { source: 'sdk' });
  kernel.on(
    'tool_call',
    (e) => {
      for (const r of e.resources) {
        if (r.kind !== 'fs.read' && r.kind !== 'fs.write') continue;
        if (!inside(workspace, r.path)) return { effect: 'deny', reason: `${r.path} is outside the workspace` };
        if (r.path.endsWith('/.env')) return { effect: 'deny', reason: `${r.path} is a secret file` };
      }
      return undefined;
    },
    { name: 'race/guard', phase: 'authorize' },
  );
  return kernel;
}

/**
 * The two ways the tools confirm what they opened: the kernel's name for a descriptor
 * (/proc/self/fd, Linux), and without it (as on macOS). On Linux both run; elsewhere the first
 * is the same as the second.
 */
export const NAMING: [string, false | undefined][] = [
  ['descriptor names', undefined],
  ['without /proc, as on macOS', false],
];

let calls = 0;

/** Run one call; returns the message and its text. */
export async function call(kernel: Kernel, name: string, args: Record<string, unknown>): Promise<ToolResultMessage & { text: string }> {
  const message = await kernel.executeToolCall({ id: `race-${++calls}`, name, arguments: args });
  return { ...message, text: message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
}


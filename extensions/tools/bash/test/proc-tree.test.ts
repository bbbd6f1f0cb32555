import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { canScanProcesses, findRunProcesses, groupHasLiving, pidsSince, readProcess } from '../src/proc-tree.js';

/**
 * A process group whose members have all exited is over, even when its zombies are never reaped
 * (a container init that does not reap, the sandbox's bwrap). kill(-pgid, 0) still succeeds for
 * it; treating that as "alive" held every sandboxed bash call's end for the kill grace period.
 */
describe.runIf(canScanProcesses)('groupHasLiving', () => {
  it('is false for a group holding only a zombie, true while a member runs', async () => {
    // python3: make a group of its own, fork a child that exits at once (a zombie nobody reaps),
    // then move itself back to its parent's group and report both ids.
    const script = [
      'import os, sys, time',
      'parent_group = os.getpgid(0)',
      'os.setpgid(0, 0)',
      'group = os.getpid()',
      'child = os.fork()',
      'if child == 0: os._exit(0)',
      'time.sleep(0.2)',
      'os.setpgid(0, parent_group)',
      'print(group, child, flush=True)',
      'sys.stdin.read()',
    ].join('\n');
    const py = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let text = '';
        py.stdout.on('data', (d: Buffer) => {
          text += d.toString();
          if (text.includes('\n')) resolve(text);
        });
        py.once('error', reject);
      });
      const [group, child] = line.trim().split(' ').map(Number) as [number, number];
      expect(readProcess(child)).toMatchObject({ zombie: true, pgrp: group });
      expect(() => process.kill(-group, 0)).not.toThrow();
      expect(groupHasLiving(group)).toBe(false);
      expect(groupHasLiving(readProcess(process.pid)!.pgrp)).toBe(true);
    } finally {
      py.stdin.end();
      await new Promise((r) => py.once('exit', r));
    }
  });
});

/**
 * The end of a short command reads only the pids handed out since it started. A process it
 * started must always be inside that window, also one that left the group: otherwise it would
 * outlive its call unseen.
 */
describe.runIf(canScanProcesses)('pidsSince', () => {
  it('holds a process started after the root, also one in a session of its own', async () => {
    const root = spawn('sh', ['-c', 'setsid sleep 23 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const daemon = Number(await new Promise<string>((resolve) => root.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
      const only = pidsSince(root.pid!, 10);
      expect(only).toBeDefined();
      expect(only!(root.pid!)).toBe(true);
      expect(only!(daemon)).toBe(true);
      expect(only!(root.pid! - 1)).toBe(false);
      expect(findRunProcesses(root.pid!, 'no-such-run', readProcess(root.pid!)!.start, only).map((p) => p.pid)).toContain(daemon);
      process.kill(daemon, 'SIGKILL');
    } finally {
      root.kill('SIGKILL');
    }
  });

  it('gives up (scan everything) for a command that ran long enough for the pids to wrap around unseen', () => {
    expect(pidsSince(process.pid, 60_000)).toBeUndefined();
  });
});

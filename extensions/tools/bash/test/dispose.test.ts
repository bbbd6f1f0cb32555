import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { createTestApi, makeTempDir } from '@airlock/kernel/testing';
import extension from '../src/index.js';
import { gone, running } from './support/processes.js';

describe('tool-bash dispose', () => {
  it('ends the background jobs of the host being closed, and only those', async () => {
    const kernels = [0, 1].map(() => {
      const dir = makeTempDir('airlock-bash-dispose-');
      return createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') }, env: { PATH: process.env.PATH } });
    });
    const apis = kernels.map((k) => createTestApi(k));
    const pids: number[] = [];
    try {
      for (const [i, kernel] of kernels.entries()) {
        await extension.setup(apis[i]!, {} as Parameters<typeof extension.setup>[1]);
        const m = await kernel.executeToolCall({ id: 'bg', name: 'bash', arguments: { command: 'exec sleep 25', background: true } });
        expect(m.outcome).toBe('ok');
        pids.push((m.details as { job: { pid: number } }).job.pid);
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(pids.map(running)).toEqual([true, true]);

      await extension.dispose(apis[0]!);
      expect(await gone(pids[0]!)).toBe(true);
      expect(running(pids[1]!)).toBe(true);
      await extension.dispose(apis[1]!);
      expect(await gone(pids[1]!)).toBe(true);
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
      await Promise.all(kernels.map((k) => k.dispose()));
    }
  });
});

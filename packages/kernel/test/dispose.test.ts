import { describe, expect, it } from 'vitest';
import { memoryLog, testKernel } from './helpers.js';

describe('kernel.onDispose and kernel.dispose', () => {
  it('runs every callback still registered at dispose, once; one that fails is logged and the others still run', async () => {
    const log = memoryLog();
    const kernel = testKernel({ log });
    const ran: string[] = [];
    kernel.onDispose(() => void ran.push('a'));
    const off = kernel.onDispose(() => void ran.push('taken back'));
    kernel.onDispose(async () => {
      throw new Error('jobs would not close');
    });
    kernel.onDispose(async () => void ran.push('b'));
    off();
    await kernel.dispose();
    await kernel.dispose();
    expect(ran.sort()).toEqual(['a', 'b']);
    expect(log.warnings).toEqual([expect.stringMatching(/A dispose callback failed: jobs would not close/)]);
  });
});

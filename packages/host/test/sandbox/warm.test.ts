import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { SandboxProfile } from '@airlock/contract';
import { createSandbox, type HostSandbox } from '../../src/index.js';
import { bwrapWorks } from './support.js';

/**
 * Issue 25: the host starts the sandbox's walk of the workspace when it opens, so the first
 * command does not pay for the whole first listing. What it learns only fills the cache: the
 * first command still sees everything as it is when that command starts.
 */

function project() {
  const root = makeTempDir('airlock-warm-');
  const work = join(root, 'project');
  for (let i = 0; i < 30; i++) {
    mkdirSync(join(work, `d${i}`), { recursive: true });
    for (let j = 0; j < 20; j++) writeFileSync(join(work, `d${i}`, `f${j}.ts`), '');
  }
  writeFileSync(join(work, 'd3', '.env'), 'SECRET');
  return { root, work };
}

async function sandboxFor(root: string, work: string, asked: { n: number }): Promise<HostSandbox> {
  const profile = (): SandboxProfile => ({ writable: [work], readOnly: [], hidden: [], classify: (p) => (asked.n++, /\/\.env[^/]*$/.test(p) ? 'hidden' : undefined) });
  return createSandbox({ mode: 'auto', path: process.env.PATH ?? '', tmpRoot: root, profile });
}

/** The files a command's arguments hide (bound over with the unopenable file). */
function hiddenIn(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length - 2; i++) if (args[i] === '--ro-bind' && args[i + 1]!.endsWith('/hidden')) out.push(args[i + 2]!);
  return out;
}

describe.skipIf(!bwrapWorks)('the walk started when the host opens', () => {
  it('runs before any command, and the first command still sees a secret made after it', async () => {
    const { root, work } = project();
    const asked = { n: 0 };
    const sandbox = await sandboxFor(root, work, asked);
    try {
      sandbox.warm(work);
      for (let i = 0; i < 200 && asked.n < 631; i++) await new Promise((r) => setTimeout(r, 10));
      expect(asked.n).toBe(631); // every entry judged (30 folders, 601 files), no command yet
      writeFileSync(join(work, 'd7', '.env.local'), 'SECRET');
      const cmd = await sandbox.service.wrap(['true'], { cwd: work, env: {} });
      expect(hiddenIn(cmd.args).sort()).toEqual([join(work, 'd3', '.env'), join(work, 'd7', '.env.local')]);
      await cmd.release();
    } finally {
      await sandbox.dispose();
    }
  });

  it('a command started while it runs waits for it and gets the whole plan; dispose stops it', async () => {
    const { root, work } = project();
    const asked = { n: 0 };
    const sandbox = await sandboxFor(root, work, asked);
    try {
      sandbox.warm(work);
      const cmd = await sandbox.service.wrap(['true'], { cwd: work, env: {} });
      expect(hiddenIn(cmd.args)).toEqual([join(work, 'd3', '.env')]);
      await cmd.release();
    } finally {
      await sandbox.dispose();
    }
    const other = await sandboxFor(root, work, asked);
    asked.n = 0;
    other.warm(work);
    await other.dispose();
    await new Promise((r) => setTimeout(r, 100));
    expect(asked.n).toBeLessThan(631);
  });

  it('steps aside while a call runs, goes on when the host is idle, and a command that needs it still gets the whole plan', async () => {
    const { root, work } = project();
    const asked = { n: 0 };
    const sandbox = await sandboxFor(root, work, asked);
    try {
      sandbox.calls(1); // a small call (a read) is running when the walk's delay ends
      sandbox.warm(work);
      await new Promise((r) => setTimeout(r, 400));
      expect(asked.n).toBe(0);
      sandbox.calls(1);
      sandbox.calls(-1);
      await new Promise((r) => setTimeout(r, 100));
      expect(asked.n).toBe(0); // one of two calls ended: still busy
      sandbox.calls(-1);
      for (let i = 0; i < 200 && asked.n < 631; i++) await new Promise((r) => setTimeout(r, 10));
      expect(asked.n).toBe(631);

      // A bash call is itself a call: its command joins the walk rather than waiting for itself.
      const again = await sandboxFor(root, work, asked);
      try {
        asked.n = 0;
        again.calls(1);
        again.warm(work);
        await new Promise((r) => setTimeout(r, 300));
        const cmd = await again.service.wrap(['true'], { cwd: work, env: {} });
        expect(hiddenIn(cmd.args)).toEqual([join(work, 'd3', '.env')]);
        await cmd.release();
      } finally {
        await again.dispose();
      }
    } finally {
      await sandbox.dispose();
    }
  });

  it('time spent stepping aside does not count against the walk\'s time bound', async () => {
    const { root, work } = project();
    const asked = { n: 0 };
    const profile = (): SandboxProfile => ({ writable: [work], readOnly: [], hidden: [], classify: (p) => (asked.n++, undefined) });
    const sandbox = await createSandbox({ mode: 'auto', path: process.env.PATH ?? '', tmpRoot: root, profile, walk: { maxMs: 250 } });
    try {
      sandbox.calls(1);
      sandbox.warm(work);
      await new Promise((r) => setTimeout(r, 700)); // 200 ms delay, then 500 ms aside: twice the bound
      sandbox.calls(-1);
      for (let i = 0; i < 200 && asked.n < 631; i++) await new Promise((r) => setTimeout(r, 10));
      expect(asked.n).toBe(631);
    } finally {
      await sandbox.dispose();
    }
  });

  it('a walk waiting for the host to be idle ends with dispose', async () => {
    const { root, work } = project();
    const asked = { n: 0 };
    const sandbox = await sandboxFor(root, work, asked);
    sandbox.calls(1);
    sandbox.warm(work);
    await new Promise((r) => setTimeout(r, 300));
    await sandbox.dispose();
    sandbox.calls(-1);
    await new Promise((r) => setTimeout(r, 100));
    expect(asked.n).toBe(0);
  });

  it('a command whose signal ends while it waits stops waiting', async () => {
    const { root, work } = project();
    const sandbox = await sandboxFor(root, work, { n: 0 });
    try {
      sandbox.warm(work);
      const controller = new AbortController();
      controller.abort(new Error('stopped by the test'));
      await expect(sandbox.service.wrap(['true'], { cwd: work, env: {}, signal: controller.signal })).rejects.toThrow('stopped by the test');
    } finally {
      await sandbox.dispose();
    }
  });
});

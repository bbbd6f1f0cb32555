import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KernelEvent, Resource, ToolCall, ToolResultMessage } from '@airlock/contract';
import { openHost, type Host } from '../src/index.js';
import { removeTempDirs, tempDir } from './extensions/fixtures.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * A batch keeps the model's order where it matters, through a real host with the default
 * extensions (the built-in tools, path-policy, audit): a newcomer's `[grep, read, edit]` of one
 * file always shows grep and read the file as it was before the edit.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

const ORIGINAL = 'line one\nTODO: write the docs\nline three\n';

async function open(): Promise<{ host: Host; project: string }> {
  const root = tempDir('airlock-batch-order-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project);
  const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' }, homeDir: home });
  hosts.push(host);
  return { host, project };
}

const text = (m: ToolResultMessage) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** bash loads its shell parser on first use; until then its calls are barriers. Wait until it reports what a command touches. */
async function warmBash(host: Host): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const decided: Resource[][] = [];
    await host.batch([{ id: 'warm', name: 'bash', arguments: { command: 'cat a.txt' } }], {
      onEvent: (e: KernelEvent) => {
        if (e.type === 'tool_decision') decided.push([...e.resources]);
      },
    });
    if (decided.some((rs) => rs.some((r) => r.kind === 'exec' && r.touches !== undefined))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('bash never reported what `cat a.txt` touches');
}

describe("a batch through the host keeps the model's order where it matters", { timeout: scaledMs(90_000) }, () => {
  it('[grep TODO a.txt, read a.txt, edit a.txt]: grep and read see the original, 10 runs of 10', async () => {
    const { host, project } = await open();
    const file = join(project, 'a.txt');
    const batch: ToolCall[] = [
      { id: 'g', name: 'grep', arguments: { pattern: 'TODO', path: 'a.txt' } },
      { id: 'r', name: 'read', arguments: { path: 'a.txt' } },
      { id: 'e', name: 'edit', arguments: { path: 'a.txt', edits: [{ oldText: 'TODO: write the docs', newText: 'DONE: docs written' }] } },
    ];
    for (let run = 0; run < 10; run++) {
      writeFileSync(file, ORIGINAL);
      const { messages } = await host.batch(batch);
      expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok', 'ok']);
      expect(text(messages[0]!)).toContain('TODO: write the docs');
      expect(text(messages[1]!)).toContain('TODO: write the docs');
      expect(text(messages[1]!)).not.toContain('DONE');
      expect(readFileSync(file, 'utf8')).toBe(ORIGINAL.replace('TODO: write the docs', 'DONE: docs written'));
    }
  });

  it('the same file through ./a.txt and its absolute path; a bash grep counts as a read of it', async () => {
    const { host, project } = await open();
    const file = join(project, 'a.txt');
    writeFileSync(file, ORIGINAL);
    await warmBash(host);
    for (let run = 0; run < 5; run++) {
      writeFileSync(file, ORIGINAL);
      const { messages } = await host.batch([
        { id: 'b', name: 'bash', arguments: { command: 'sleep 0.2; grep TODO ./a.txt' } },
        { id: 'r', name: 'read', arguments: { path: file } },
        { id: 'e', name: 'edit', arguments: { path: './a.txt', edits: [{ oldText: 'TODO', newText: 'DONE' }] } },
      ]);
      expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok', 'ok']);
      expect(text(messages[0]!)).toContain('TODO: write the docs');
      expect(text(messages[1]!)).toContain('TODO: write the docs');
    }
  });

  it('a write then a read of the same file: the read sees what was written', async () => {
    const { host } = await open();
    const { messages } = await host.batch([
      { id: 'w', name: 'write', arguments: { path: 'new.txt', content: 'fresh content\n' } },
      { id: 'r', name: 'read', arguments: { path: 'new.txt' } },
    ]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok']);
    expect(text(messages[1]!)).toContain('fresh content');
  });

  it('bash that writes a file, then a read of it: the read sees the output', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'a.txt'), ORIGINAL);
    await warmBash(host);
    const { messages } = await host.batch([
      { id: 'b', name: 'bash', arguments: { command: 'sleep 0.2; grep TODO a.txt > hits.txt' } },
      { id: 'r', name: 'read', arguments: { path: 'hits.txt' } },
    ]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok']);
    expect(text(messages[1]!)).toContain('TODO: write the docs');
  });

  it('commands that read different files run side by side: each started before the other ended', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'a.txt'), ORIGINAL);
    writeFileSync(join(project, 'b.txt'), ORIGINAL);
    await warmBash(host);
    // Each command stamps its start and end into files of its own (writes no other call touches).
    const stamped = (n: string, file: string) => `date +%s%N > ${n}.start; cat ${file}; sleep 1; date +%s%N > ${n}.end`;
    const { messages } = await host.batch([
      { id: 'x', name: 'bash', arguments: { command: stamped('x', 'a.txt') } },
      { id: 'y', name: 'bash', arguments: { command: stamped('y', 'b.txt') } },
    ]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok']);
    const stamp = (f: string) => BigInt(readFileSync(join(project, f), 'utf8').trim());
    expect(stamp('y.start')).toBeLessThan(stamp('x.end'));
    expect(stamp('x.start')).toBeLessThan(stamp('y.end'));
  });

  it('a command the analysis cannot follow is a barrier: the read after it waits', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'b.txt'), ORIGINAL);
    await warmBash(host);
    const { messages } = await host.batch([
      { id: 'x', name: 'bash', arguments: { command: 'sleep 0.3; python3 -c "open(\'b.txt\', \'w\').write(\'by python\\n\')"' } },
      { id: 'r', name: 'read', arguments: { path: 'b.txt' } },
    ]);
    expect(messages[0]!.outcome).toBe('ok');
    expect(text(messages[1]!)).toContain('by python');
  });
});

import { existsSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/**
 * `airlock batch` with the default extension set (path-policy, bash, read, write …): one batch
 * must not race its own policy. A call is judged again just before it runs when an earlier call
 * of the batch may have changed the filesystem.
 */

const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- e2e-0123456789';

type Message = { toolCallId: string; toolName: string; outcome: string; content: { text?: string }[] };
const texts = (m: Message) => m.content.map((c) => c.text ?? '').join('');

let made: string[] = [];
afterEach(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  made = [];
});

function machine() {
  const s = sandbox();
  made.push(s.base);
  s.write('home/.ssh/id_rsa', KEY);
  s.write('project/notes.txt', 'project notes\n');
  return s;
}

async function batch(s: ReturnType<typeof sandbox>, calls: unknown[]) {
  const r = await s.airlock(['--json', 'batch', '-'], { stdin: JSON.stringify(calls) });
  expect(r.stdout, r.stderr).not.toBe('');
  return { ...r, messages: JSON.parse(r.stdout) as Message[] };
}

describe('airlock batch: a call is judged again after bash may have changed the filesystem', () => {
  it('[bash "ln -s ~/.ssh/id_rsa tk", bash "sleep", read tk] does not print the key', async () => {
    const s = machine();
    const r = await batch(s, [
      { name: 'bash', arguments: { command: 'ln -s ~/.ssh/id_rsa tk' } },
      { name: 'bash', arguments: { command: 'sleep 0.2' } },
      { name: 'read', arguments: { path: 'tk' } },
    ]);
    expect(r.stdout).not.toContain('e2e-0123456789');
    expect(r.messages.map((m) => m.outcome)).toEqual(['ok', 'ok', 'denied']);
    expect(readlinkSync(join(s.project, 'tk'))).toBe(join(s.home, '.ssh/id_rsa'));
    expect(texts(r.messages[2]!)).toContain('The batch changed the filesystem');
    expect(texts(r.messages[2]!)).toContain('well-known secret file');
    expect(r.code).toBe(1);
  });

  it('every tool that reads is judged again: grep, find, ls through a folder link, bash cat and read through a file link', async () => {
    const s = machine();
    const r = await batch(s, [
      { name: 'bash', arguments: { command: 'ln -s ~/.ssh d' } },
      { name: 'bash', arguments: { command: 'ln -s ~/.ssh/id_rsa tk' } },
      { name: 'grep', arguments: { pattern: 'KEY', path: 'd' } },
      { name: 'find', arguments: { pattern: '*', path: 'd' } },
      { name: 'ls', arguments: { path: 'd' } },
      { name: 'bash', arguments: { command: 'cat tk' } },
      { name: 'read', arguments: { path: 'tk' } },
    ]);
    expect(r.stdout).not.toContain('e2e-0123456789');
    expect(r.messages.map((m) => m.outcome)).toEqual(['ok', 'ok', 'denied', 'denied', 'denied', 'denied', 'denied']);
    for (const m of r.messages.slice(2)) expect(texts(m)).toContain('The batch changed the filesystem');
  });

  it('a write through a folder link planted by bash in the same batch does not land in ~/.ssh', async () => {
    const s = machine();
    const r = await batch(s, [
      { name: 'bash', arguments: { command: 'ln -s ~/.ssh keys' } },
      { name: 'write', arguments: { path: 'keys/authorized_keys', content: 'ssh-ed25519 AAAA attacker' } },
    ]);
    expect(r.messages.map((m) => m.outcome)).toEqual(['ok', 'denied']);
    expect(existsSync(join(s.home, '.ssh/authorized_keys'))).toBe(false);
    expect(texts(r.messages[1]!)).toContain('The batch changed the filesystem');
  });

  it('ordinary work still works: a write, then reads of allowed files', async () => {
    const s = machine();
    const r = await batch(s, [
      { name: 'write', arguments: { path: 'out.txt', content: 'fresh output\n' } },
      { name: 'read', arguments: { path: 'notes.txt' } },
      { name: 'read', arguments: { path: 'out.txt' } },
      { name: 'bash', arguments: { command: 'cat out.txt notes.txt' } },
    ]);
    expect(r.messages.map((m) => m.outcome), r.stdout).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(texts(r.messages[1]!)).toContain('project notes');
    expect(texts(r.messages[2]!)).toContain('fresh output');
    expect(texts(r.messages[3]!)).toContain('fresh output\nproject notes');
    expect(r.code).toBe(0);
  });
});

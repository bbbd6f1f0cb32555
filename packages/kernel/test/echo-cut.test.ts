import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel } from '../src/index.js';
import { defineTool } from '@airlock/contract';
import { echo, text } from './helpers.js';

/** Texts for the model quote the call; a huge argument must not make a huge result (issue 9). */

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const HUGE = `rm -rf /${'a'.repeat(2_000_000)}`;
const dirs: string[] = [];

function kernel() {
  const root = mkdtempSync(join(tmpdir(), 'airlock-kernel-echo-'));
  dirs.push(root);
  const k = createKernel({ cwd: root, spill: { dir: join(root, 'spill') } });
  k.registry.register(echo, { source: 'sdk' });
  k.registry.register(
    defineTool({
      name: 'shell',
      label: 'Shell',
      description: 'Run a command.',
      parameters: Type.Object({ command: Type.String(), timeout: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
      async execute(_id, { command }) {
        return { content: [{ type: 'text', text: `ran ${command.length}` }] };
      },
    }),
    { source: 'sdk' },
  );
  return k;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('huge arguments are cut in what the model reads, with their length and SHA-256', () => {
  it('a deny whose reason quotes a 2 MB command stays a few KB and names the cut command', async () => {
    const k = kernel();
    k.on('tool_call', (e) => ({ effect: 'deny', reason: `never run ${(e.args as { command: string }).command}` }), { name: 'p/quote', phase: 'authorize' });
    const msg = await k.executeToolCall({ id: 'c', name: 'shell', arguments: { command: HUGE } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg).length).toBeLessThan(8192);
    expect(text(msg)).toContain('never run rm -rf /aaa');
    const reason = `never run ${HUGE}`;
    expect(text(msg)).toContain(`[cut: ${reason.length} characters in all, sha256 ${sha(reason)}]`);
  });

  it('an ask nobody can answer, quoting the command, is cut the same way', async () => {
    const k = kernel();
    k.on('tool_call', (e) => ({ effect: 'ask', reason: (e.args as { command: string }).command }), { name: 'p/ask', phase: 'authorize' });
    const msg = await k.executeToolCall({ id: 'c', name: 'shell', arguments: { command: HUGE } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg).length).toBeLessThan(8192);
    expect(text(msg)).toContain(`sha256 ${sha(HUGE)}`);
  });

  it('invalid arguments: each long string is cut, and the other arguments stay visible', async () => {
    const k = kernel();
    const msg = await k.executeToolCall({ id: 'c', name: 'shell', arguments: { command: HUGE, timeout: 'soon' } });
    expect(msg.outcome).toBe('invalid');
    expect(text(msg).length).toBeLessThan(8192);
    expect(text(msg)).toContain(`[cut: ${HUGE.length} characters in all, sha256 ${sha(HUGE)}]`);
    expect(text(msg)).toContain('"timeout": "soon"');
  });

  it('invalid arguments sent as a huge non-JSON string', async () => {
    const k = kernel();
    const raw = `{"command": "${'b'.repeat(1_000_000)}`;
    const msg = await k.executeToolCall({ id: 'c', name: 'shell', arguments: raw as never });
    expect(msg.outcome).toBe('invalid');
    expect(text(msg).length).toBeLessThan(8192);
    expect(text(msg)).toContain(`sha256 ${sha(raw)}`);
  });

  it('a huge unknown tool name is shown cut, with its length and hash', async () => {
    const k = kernel();
    const name = `x${'y'.repeat(100_000)}`;
    const msg = await k.executeToolCall({ id: 'c', name, arguments: {} });
    expect(msg.outcome).toBe('not_found');
    expect(text(msg).length).toBeLessThan(1024);
    expect(text(msg)).toContain(`[cut: ${name.length} characters in all, sha256 ${sha(name)}]`);
  });

  it('short arguments are echoed whole, as before', async () => {
    const k = kernel();
    k.on('tool_call', () => ({ effect: 'deny', reason: 'no rm -rf /tmp/x' }), { name: 'p/short', phase: 'authorize' });
    const denied = await k.executeToolCall({ id: 'c', name: 'shell', arguments: { command: 'rm -rf /tmp/x' } });
    expect(text(denied)).toContain('Reason: no rm -rf /tmp/x [handler "p/short"]');
    expect(text(denied)).not.toContain('[cut:');
    const invalid = await kernel().executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'hi', times: 'many' } });
    expect(text(invalid)).toContain('"times": "many"');
    expect(text(invalid)).not.toContain('[cut:');
  });
});

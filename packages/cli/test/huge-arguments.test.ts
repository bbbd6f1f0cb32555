import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultAuditPath } from '@airlock/audit-log';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 9: a 2 MB command sent by the model, through the real host with the default extensions.
 * What the model gets back and what the audit log stores must each stay a few KB, and still name
 * the command by its length and SHA-256.
 */

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function call(command: string) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-cli-huge-')));
  dirs.push(dir);
  const io = testIO(dir, dir);
  io.readStdin = async () => JSON.stringify({ command });
  const code = await run(['--json', 'call', 'bash', '-'], io);
  const log = defaultAuditPath(dir, { env: io.env, home: dir });
  return { code, out: io.out(), lines: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('a 2 MB command through the real host', () => {
  it('is denied (needs approval, none here) with a result of a few KB and audit records of a few KB', async () => {
    const command = `rm -rf /${'a'.repeat(2_000_000)}`;
    const { code, out, lines } = await call(command);
    expect(code).toBe(1);
    expect(out.length).toBeLessThan(8 * 1024);
    const message = JSON.parse(out) as { outcome: string; content: { text: string }[] };
    expect(message.outcome).toBe('denied');
    expect(message.content[0]!.text).toContain('rm -rf /aaaa');
    expect(message.content[0]!.text).toMatch(/\[cut: \d+ characters in all, sha256 [0-9a-f]{64}\]/);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThan(16 * 1024);
    const [decision, result] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(decision).toMatchObject({ type: 'decision', decision: 'deny' });
    expect((decision!.args as { command: string }).command).toContain(`[cut by the audit log: ${command.length} characters in all, sha256 ${sha(command)}]`);
    expect(result).toMatchObject({ type: 'result', outcome: 'denied' });
    expect(result!.resultBytes as number).toBeLessThan(8 * 1024);
  }, scaledMs(60_000));

  it('an ordinary command is echoed and recorded whole', async () => {
    const { out, lines } = await call('rm -rf /tmp/airlock-nothing-here');
    expect(out).toContain('rm -rf /tmp/airlock-nothing-here');
    expect(out).not.toContain('[cut');
    expect(JSON.parse(lines[0]!)).toMatchObject({ args: { command: 'rm -rf /tmp/airlock-nothing-here' } });
  }, scaledMs(60_000));
});

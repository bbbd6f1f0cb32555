import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** A server whose tools are spelled with "-", as @modelcontextprotocol/server-everything's are. */
const SERVER = join(ROOT, 'test/e2e/fixtures/everything-like-server.mjs');

function withRules(permissions: Record<string, string[]>) {
  const s = sandbox();
  s.write('home/.config/airlock/settings.json', {
    sandbox: { mode: 'off' },
    permissions,
    extensions: [{ name: '@airlock/mcp-tools', options: { mcpServers: { everything: { command: process.execPath, args: [SERVER] } } } }],
  });
  return s;
}

const SUM = '{"a":2,"b":3}';

describe('an MCP tool spelled with "-" (everything__get-sum) and the rules that name it', { timeout: scaledMs(120_000) }, () => {
  it('keeps the server\'s spelling; a rule spelled the same way decides', async () => {
    const s = withRules({ allow: ['everything__get-sum'] });
    const r = await s.airlock(['call', 'everything__get-sum', SUM]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('The sum of 2 and 3 is 5.');
  });

  it('a deny spelled with "_" still denies (fail closed), and says how the tool is spelled', async () => {
    const s = withRules({ deny: ['everything__get_sum'] });
    const r = await s.airlock(['call', 'everything__get-sum', SUM]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('The sum of');
    expect(r.stdout).toContain('The tool is spelled "everything__get-sum"');
    const explained = await s.airlock(['policy', 'explain', 'everything__get-sum', SUM]);
    expect(explained.stdout).toMatch(/decision: deny/);
    expect(explained.stdout).toContain('everything__get_sum');
    expect(explained.stdout).toContain('Write "everything__get-sum" in the rule');
  });

  it('an allow spelled with "_" opens nothing, and the ask says which spelling would', async () => {
    const s = withRules({ allow: ['everything__get_sum'] });
    const r = await s.airlock(['call', 'everything__get-sum', SUM]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('The sum of');
    expect(r.stdout).toContain('allow "everything__get_sum" does not apply');
    expect(r.stdout).toContain('Write "everything__get-sum" in the rule');
  });

  it('a call spelled with "_" is not found, and did-you-mean names the server\'s spelling first', async () => {
    const s = withRules({ allow: ['everything__get-sum'] });
    const r = await s.airlock(['call', 'everything__get_sum', SUM]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/not found\. Did you mean: everything__get-sum/);
    const explained = await s.airlock(['policy', 'explain', 'everything__get_sum', SUM]);
    expect(explained.stdout, explained.stderr).toMatch(/Did you mean: everything__get-sum/);
  });
});

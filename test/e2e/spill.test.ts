import { existsSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/**
 * Issue 11 through the real binary: the spill file a one-shot `airlock call` names still exists
 * after it exits, and a second `airlock call read` of it works (no approval, nobody to ask);
 * the retention policy prunes old and oversized spills instead.
 */

const spillPath = (stdout: string): string => {
  const path = /Full output: (\S+)\]/.exec(stdout)?.[1];
  expect(path, stdout).toBeDefined();
  return path!;
};

describe('airlock call: a spill file named in a result is there when the model reads it', () => {
  it('bash seq 1 100000, then read of the named path in a separate process (default spill folder)', async () => {
    const s = sandbox();
    const cut = await s.airlock(['call', 'bash', '{"command":"seq 1 100000"}']);
    expect(cut.code, cut.stderr).toBe(0);
    const path = spillPath(cut.stdout);
    // The default folder: this user's, under the temp dir (the test run's own TMPDIR).
    expect(path.startsWith(join(tmpdir(), `airlock-spill-${process.getuid?.()}`))).toBe(true);

    const read = await s.airlock(['call', 'read', JSON.stringify({ path })]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.split('\n').slice(0, 3)).toEqual(['1', '2', '3']);
    expect(read.stdout).toContain('[Showing lines 1-2000 of 100000. Use offset=2001 to continue.]');
    const rest = await s.airlock(['call', 'read', JSON.stringify({ path, offset: 99999 })]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout.trim()).toBe('99999\n100000');
  });

  it('the retention policy prunes spills older than limits.spillRetentionDays and past limits.spillTotalBudget', async () => {
    const s = sandbox();
    const root = join(s.base, 'spills');
    // One seq output is 588,895 bytes: a budget of 1.5 of them keeps one earlier session, not two.
    s.write('home/.config/airlock/settings.json', { limits: { spillDir: root, spillRetentionDays: 1, spillTotalBudget: 900_000 } });
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await s.airlock(['call', 'bash', '{"command":"seq 1 100000"}']);
      expect(r.code, r.stderr).toBe(0);
      sessions.push(dirname(spillPath(r.stdout)));
    }
    // Both outlived their processes until now; the second run's spill pruned the first (over budget).
    expect(existsSync(sessions[0]!)).toBe(false);
    expect(readFileSync(join(sessions[1]!, readdirSync(sessions[1]!).find((n) => n.endsWith('.log'))!), 'utf8').endsWith('100000\n')).toBe(true);

    // Age: a session last written two days ago goes at the next run's first spill; a small one made now stays.
    const small = await s.airlock(['call', 'bash', '{"command":"seq 1 3000"}']);
    const smallDir = dirname(spillPath(small.stdout));
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    for (const name of readdirSync(smallDir)) utimesSync(join(smallDir, name), twoDaysAgo, twoDaysAgo);
    utimesSync(smallDir, twoDaysAgo, twoDaysAgo);
    const next = await s.airlock(['call', 'bash', '{"command":"seq 1 3000"}']);
    expect(next.code, next.stderr).toBe(0);
    expect(existsSync(smallDir)).toBe(false);
    expect(existsSync(dirname(spillPath(next.stdout)))).toBe(true);
  });
});

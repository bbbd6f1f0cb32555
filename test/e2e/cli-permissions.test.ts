import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/**
 * The CLI where the files deny the person: in a file of its own so that .ci/private-clone-check,
 * which runs the tests about users and modes again from a 0700 clone, runs only this one of the
 * CLI's end-to-end tests.
 */

const json = (text: string): unknown => JSON.parse(text);

describe('airlock batch on files it may not read', () => {
  it('permission denied: every file tool says so plainly, and the run itself does not fail', async () => {
    const s = sandbox();
    s.write('project/secret.txt', 'secret\n');
    s.write('project/locked/inside.txt', 'x\n');
    // As root, chmod denies nothing: run the CLI as the unprivileged user "nobody" instead.
    const asRoot = process.getuid?.() === 0;
    const uid = asRoot ? 65534 : undefined;
    chmodSync(join(s.project, 'secret.txt'), asRoot ? 0o600 : 0o000);
    chmodSync(join(s.project, 'locked'), asRoot ? 0o700 : 0o000);
    if (asRoot) for (const dir of [s.base, s.project, s.home, join(s.home, '.config'), join(s.home, '.config', 'airlock')]) chmodSync(dir, 0o777);
    const calls = [
      { name: 'read', arguments: { path: 'secret.txt' } },
      { name: 'ls', arguments: { path: 'locked' } },
      { name: 'edit', arguments: { path: 'secret.txt', edits: [{ oldText: 'secret', newText: 'public' }] } },
      { name: 'write', arguments: { path: 'secret.txt', content: 'overwritten' } },
      { name: 'write', arguments: { path: 'locked/new.txt', content: 'x' } },
      { name: 'grep', arguments: { pattern: 'x', path: 'locked' } },
      { name: 'find', arguments: { pattern: '*', path: 'locked' } },
    ];
    const r = await s.airlock(['--json', 'batch', '-'], { stdin: JSON.stringify(calls), ...(uid === undefined ? {} : { uid }) });
    try {
      expect(r.stderr).not.toMatch(/EACCES: permission denied, (lstat|mkdir|rm)/);
      expect(r.code, r.stderr).toBe(1);
      const messages = json(r.stdout) as { toolName: string; isError: boolean; content: { text?: string }[] }[];
      const said = messages.map((m) => `${m.toolName}: ${m.content.map((c) => c.text).join('')}`);
      expect(said.filter((_, i) => !messages[i]!.isError)).toEqual([]);
      expect(said[0]).toMatch(/^read: Permission denied: cannot read secret\.txt/);
      expect(said[1]).toMatch(/^ls: Cannot read directory locked: permission denied/);
      expect(said[2]).toMatch(/^edit: Permission denied: cannot edit secret\.txt/);
      expect(said[3]).toMatch(/^write: Permission denied: cannot write secret\.txt/);
      // A folder it may not search: the same plain answer, not a policy-sounding "could not work out what the call touches".
      expect(said[4]).toMatch(/^write: Permission denied: cannot [\w ]+locked\/new\.txt/);
      expect(said[5]).toMatch(/^grep: Permission denied: cannot search locked/);
      expect(said[6]).toMatch(/^find: Permission denied: cannot search locked/);
    } finally {
      chmodSync(join(s.project, 'locked'), 0o700);
    }
  });
});

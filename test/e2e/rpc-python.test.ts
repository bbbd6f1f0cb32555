import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runProgram, sandbox } from './harness.js';

const CLIENT = join(ROOT, 'examples/rpc-python/client.py');

/** docs/rpc.md's Python client, run with the system's python3 against the real binary. */
describe('examples/rpc-python/client.py', () => {
  it('lists the tools, reads a file, answers an approval prompt, and is refused a denied file', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'hello from python\n');
    s.write('project/ask.txt', 'needed a yes\n');
    s.write('project/.env', 'API_KEY=sk-live-987654\n');
    s.write('home/.config/airlock/settings.json', { permissions: { ask: ['fs.read(**/ask.txt)'], deny: ['fs.read(**/.env)'] } });
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), AIRLOCK: `${process.execPath} ${BIN} --cwd ${s.project}` };
    const run = await runProgram('python3', [CLIENT, 'notes.txt', 'ask.txt', '.env'], { cwd: s.base, env });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^tools: .*\bread\b/);
    expect(lines[1]).toBe('notes.txt -> ok: hello from python');
    expect(lines[2]).toMatch(/^asked: .*read/);
    expect(lines[3]).toBe('ask.txt -> ok: needed a yes');
    expect(lines[4]).toMatch(/^\.env -> denied: /);
    expect(run.stdout).not.toContain('sk-live-987654');
    expect(lines).toHaveLength(5);
  });
});

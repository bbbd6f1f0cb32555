import { describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';
import { inPty } from './pty.js';

/** `airlock run -p` on a terminal: a running command's output shows live, on stderr, as `call` does. */

const script = `${JSON.stringify({ content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'echo live-one; sleep 0.6; echo live-two; sleep 0.6' } }] })}\n"Finished."\n`;

describe('airlock run -p on a terminal', () => {
  it('streams bash output to the terminal while it runs; the answer follows', async () => {
    const s = sandbox();
    s.write('project/s.jsonl', script);
    const out = await inPty(s, ['run', '-p', 'go', '--model', 'scripted:s.jsonl'], [{ expect: 'live-two' }, { expect: 'Finished.' }]);
    expect(out.exitCode).toBe(0);
    const t = out.transcript;
    expect(t.indexOf('live-one')).toBeLessThan(t.indexOf('bash (call_1_1) → ok'));
    expect(t.indexOf('bash (call_1_1) → ok')).toBeLessThan(t.indexOf('Finished.'));
  });

  it('without a terminal the output stays out of stderr: stdout holds the answer alone', async () => {
    const s = sandbox();
    s.write('project/s.jsonl', script);
    const r = await s.airlock(['run', '-p', 'go', '--model', 'scripted:s.jsonl']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Finished.\n');
    expect(r.stderr).not.toContain('live-one');
  });
});

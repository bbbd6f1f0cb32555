import { generateKeyPairSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/** The redactor (issue 9) as a user meets it: bash through the real `airlock` binary. */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function box() {
  const s = sandbox();
  made.push(s.base);
  return s;
}

async function bash(s: ReturnType<typeof sandbox>, command: string): Promise<string> {
  const r = await s.airlock(['--json', 'call', 'bash', JSON.stringify({ command })]);
  expect(r.code, r.stderr).toBe(0);
  const message = JSON.parse(r.stdout) as { content: { type: string; text?: string }[] };
  return message.content.map((c) => c.text ?? '').join('\n');
}

describe('secret redaction through the real binary', () => {
  it('`echo sk-sk-sk-…` of 400 KB comes back at once, unchanged (it took 210 s and blocked the CLI)', async () => {
    const s = box();
    // Let all of it into the result, as a user raising the limit would: the redactor sees 400 KB, not a 50 KiB tail.
    s.write('project/.airlockrc.json', { limits: { maxBytes: 1_000_000 } });
    const text = await bash(s, "yes sk- | tr -d '\\n' | head -c 400000; echo");
    expect(text.length).toBeGreaterThanOrEqual(400_000);
    expect(text).toMatch(/(?:sk-){1000}/);
    expect(text).not.toContain('REDACTED');
  });

  it('a private key read from its second line, and `base64` of a file holding a token', async () => {
    const s = box();
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    s.write('project/notes/deploy.txt', `deploy key, do not share:\n${pem}`);
    const token = 'ghp_' + 'Zq9x7LmN3pR5tV8wY2bD4fH6jK1sA0cE3gI5';
    s.write('project/notes/app.txt', `NODE_ENV=production\nGITHUB_TOKEN=${token}\n`);
    const tail = await bash(s, 'tail -n +3 notes/deploy.txt');
    for (const line of pem.split('\n').filter((l) => l.length > 0 && !l.startsWith('-----'))) expect(tail).not.toContain(line);
    expect(tail).toContain('[REDACTED:private-key#1]');
    expect(tail).toContain('-----END PRIVATE KEY-----');
    const encoded = await bash(s, 'base64 notes/app.txt');
    expect(encoded.trim()).toBe('[REDACTED:base64:github-token#1]');
  });
});

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { openHost, type Host } from '@airlock/host';
import { loadTranscript, openTranscript, userMessage, type AssistantMessage } from '@airlock/agent';

/**
 * A transcript written through a real host passes the real redact-secrets before a byte reaches
 * the file: a GitHub token the user typed, the model repeated, and a tool read never appears.
 */

vi.setConfig({ testTimeout: scaledMs(60_000) });

const TOKEN = `ghp_${'Zq8Rt5Lm2N'.repeat(3)}Xy4Wv6`;

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

describe('transcript redaction with redact-secrets', () => {
  it('a planted token in the user message, the assistant turn and a tool result never reaches the file', async () => {
    const base = makeTempDir('airlock-cli-transcript-redaction-');
    const home = join(base, 'home');
    const project = join(base, 'project');
    mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'deploy.sh'), `export GITHUB_TOKEN=${TOKEN}\n`);
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') };
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home });
    hosts.push(host);
    expect(host.blocked).toBeUndefined();

    const transcript = openTranscript({ cwd: project, model: 'scripted:demo', redact: host.redact, where: { env, home } });
    transcript.appendMessage(userMessage(`Use my token ${TOKEN} to push.`));
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `The user gave ${TOKEN}.` },
        { type: 'text', text: 'Checking the deploy script first.' },
        { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'deploy.sh' } },
        { type: 'toolCall', id: 'call_2', name: 'bash', arguments: { command: `git push https://${TOKEN}@github.com/acme/shop` } },
      ],
      stopReason: 'toolUse',
      provider: 'scripted',
      model: 'demo',
      timestamp: Date.now(),
    };
    transcript.appendMessage(assistant);
    const read = await host.execute({ id: 'call_1', name: 'read', arguments: { path: 'deploy.sh' } });
    transcript.appendMessage(read);
    // A result made outside the kernel (a program's own tool) carries the token in clear: the store still redacts it.
    transcript.appendMessage({ role: 'toolResult', toolCallId: 'call_2', toolName: 'bash', content: [{ type: 'text', text: `pushed with ${TOKEN}` }], details: { stderr: TOKEN }, isError: false, outcome: 'ok', timestamp: Date.now() });
    transcript.close();

    const bytes = readFileSync(transcript.path, 'utf8');
    expect(bytes).not.toContain(TOKEN);
    expect(bytes).not.toContain(TOKEN.slice(4, 24));
    const [user, said, result, own] = loadTranscript(transcript.path).messages;
    const placeholder = /\[REDACTED:github-token#\d+\]/;
    expect(user).toMatchObject({ role: 'user', content: expect.stringMatching(placeholder) });
    expect(JSON.stringify(said)).toMatch(placeholder);
    expect(JSON.stringify(result)).toMatch(placeholder);
    expect(JSON.stringify(own)).toMatch(placeholder);
    // One redactor for the run: the token has the same placeholder wherever it appears.
    expect(new Set(bytes.match(/\[REDACTED:github-token#\d+\]/g))).toHaveProperty('size', 1);
    // Ordinary text is kept as it was.
    expect(bytes).toContain('Checking the deploy script first.');
  });
});

import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import Type from 'typebox';
import Value from 'typebox/value';
import { createKernel } from '@airlock/kernel';
import { defineTool, type ExtensionAPI, type KernelEvent, type ToolResultEvent } from '@airlock/contract';
import { createRedactor, createSecretScanner } from '@airlock/secrets';
import { growth } from '../../../lib/secrets/test/linear-time.js';
import extension, { parseAllow, redactHandler } from '../src/index.js';

const GH = 'ghp_' + 'Zq9x7LmN3pR5tV8wY2bD4fH6jK1sA0cE3gI5';
const PG_PASS = 'Xk2v9QpL7sWm4RtZ';
const EXAMPLE_AWS = 'AKIAIOSFODNN7EXAMPLE';
/** A 1×1 PNG whose base64 would be mangled by a careless redactor. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A bash-like tool: prints the command's "output", streaming it line by line first. */
const shell = defineTool({
  name: 'sh',
  label: 'Shell',
  description: 'Echo text back as command output.',
  parameters: Type.Object({ out: Type.String(), image: Type.Optional(Type.Boolean()) }),
  async execute(_id, { out, image }, _signal, onUpdate) {
    for (const line of out.split('\n')) onUpdate?.({ content: [{ type: 'text', text: line }], details: { env: { GITHUB_TOKEN: GH } } });
    await new Promise((r) => setTimeout(r, 5));
    return {
      content: [{ type: 'text', text: out }, ...(image ? [{ type: 'image' as const, data: PNG, mimeType: 'image/png' }] : [])],
      details: { exitCode: 0, command: { argv: ['sh', '-c', out] }, password: 'Pq7xZ2mW9vL4kT8r', took: new Date(0) },
    };
  },
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function load(options: unknown = {}, env?: Record<string, string>) {
  const kernel = createKernel({ updateThrottleMs: 0 });
  kernel.registry.register(shell, { source: 'sdk' });
  const resolved = Value.Convert(extension.options, Value.Default(extension.options, options));
  // The host's environment, as api.env carries it.
  const api = { on: kernel.on, env: env ?? {} } as Partial<ExtensionAPI> as ExtensionAPI;
  void extension.setup(api, resolved as never);
  let n = 0;
  return async (args: Record<string, unknown>) => {
    const events: KernelEvent[] = [];
    const msg = await kernel.executeToolCall({ id: `c${++n}`, name: 'sh', arguments: args }, { onEvent: (e) => void events.push(e) });
    const text = msg.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    const partials = events.flatMap((e) => (e.type === 'tool_execution_update' ? [e.partial] : []));
    return { msg, text, partials };
  };
}

describe('redact-secrets through a real kernel', () => {
  it('redacts a token in command output, in the streamed partials and in details', async () => {
    const call = load({ envFrom: 'none' });
    const { msg, text, partials } = await call({ out: `token=${GH}\npostgres://app:${PG_PASS}@db:5432/app` });
    expect(text).toBe('token=[REDACTED:github-token#1]\npostgres://app:[REDACTED:connection-string#1]@db:5432/app');
    expect(partials.length).toBeGreaterThan(0);
    expect(JSON.stringify(partials)).not.toContain(GH);
    expect(partials[0]!.content).toEqual([{ type: 'text', text: 'token=[REDACTED:github-token#1]' }]);
    expect(partials[0]!.details).toEqual({ env: { GITHUB_TOKEN: '[REDACTED:github-token#1]' }, airlockRedactions: { '[REDACTED:github-token#1]': sha256(GH) } });
    const details = msg.details as Record<string, unknown>;
    expect(JSON.stringify(details)).not.toContain(GH);
    expect(JSON.stringify(details)).not.toContain(PG_PASS);
    expect(details.password).toBe('[REDACTED:secret-assignment#1]');
    expect(details.took).toBeInstanceOf(Date); // not a plain object: passed through as it was
    // Beside each placeholder, the hash of what it replaced (issue 19): never the value itself.
    expect(details.airlockRedactions).toEqual({
      '[REDACTED:github-token#1]': sha256(GH),
      '[REDACTED:connection-string#1]': sha256(PG_PASS),
      '[REDACTED:secret-assignment#1]': sha256('Pq7xZ2mW9vL4kT8r'),
    });
    expect(msg.outcome).toBe('ok');
  });

  it('gives the same secret the same placeholder across calls, and a new one the next number', async () => {
    const call = load({ envFrom: 'none' });
    const other = 'ghp_' + 'Bb8n2Mq4Wr6Ty1Ui3Op5As7Df9Gh0Jk2Lz4X';
    const first = await call({ out: `A ${GH}` });
    const second = await call({ out: `B ${other} C ${GH}` });
    expect(first.text).toBe('A [REDACTED:github-token#1]');
    expect(second.text).toBe('B [REDACTED:github-token#2] C [REDACTED:github-token#1]');
  });

  it('leaves clean results alone, and image data untouched', async () => {
    const call = load({ envFrom: 'none' });
    const { msg } = await call({ out: 'all good: 3 files, sha 9fceb02d0ae598e95dc970b74767f19372d61af8', image: true });
    expect(msg.content[0]).toEqual({ type: 'text', text: 'all good: 3 files, sha 9fceb02d0ae598e95dc970b74767f19372d61af8' });
    expect(msg.content[1]).toMatchObject({ type: 'image', data: PNG });
  });

  it("redacts the values of the host's secret environment variables when envFrom is 'process'", async () => {
    const call = load({}, { AIRLOCK_TEST_DB_PASSWORD: 'plainpassword1' });
    const { text } = await call({ out: 'connecting with plainpassword1 …' });
    expect(text).toBe('connecting with [REDACTED:env:AIRLOCK_TEST_DB_PASSWORD#1] …');
    const none = load({ envFrom: 'none' }, { AIRLOCK_TEST_DB_PASSWORD: 'plainpassword1' });
    expect((await none({ out: 'connecting with plainpassword1 …' })).text).toBe('connecting with plainpassword1 …');
  });

  it('honours the allowlist: exact values and regex sources', async () => {
    const call = load({ envFrom: 'none', allow: [GH, 'EXAMPLE$'] });
    const { text } = await call({ out: `${GH} AKIAQWERTYUIOPASDF2E ${EXAMPLE_AWS}` });
    expect(text).toBe(`${GH} [REDACTED:aws-access-key-id#1] ${EXAMPLE_AWS}`);
  });

  it('rejects an allow entry that is a broken regex, naming it', () => {
    expect(() => parseAllow(['ghp_(unclosed'])).toThrow(/allow entry "ghp_\(unclosed" is not a valid regular expression/);
    expect(parseAllow(['/^ghp_0+$/i', 'exact-value'])).toEqual([/^ghp_0+$/i, 'exact-value']);
  });

  it('redacts a private-key body cut from its BEGIN line, in the result, every partial and details', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const body = pem.split('\n').slice(3, 9); // `sed -n 4,9p key.pem`
    const call = load({ envFrom: 'none' });
    const { msg, text, partials } = await call({ out: `$ sed -n 4,9p key.pem\n${body.join('\n')}` });
    // The streamed lines came first, one placeholder each; the final result is one block.
    expect(text).toMatch(/^\$ sed -n 4,9p key\.pem\n\[REDACTED:private-key#\d+\]$/);
    expect(partials.length).toBe(body.length + 1);
    const seen = JSON.stringify([partials, msg.details]);
    for (const line of body) expect(seen).not.toContain(line);
  });

  it('redacts the token inside `base64 .env` output', async () => {
    const call = load({ envFrom: 'none' });
    const encoded = Buffer.from(`NODE_ENV=production\nGITHUB_TOKEN=${GH}\n`).toString('base64');
    const { text } = await call({ out: `$ base64 -w0 .env\n${encoded}` });
    expect(text).toBe('$ base64 -w0 .env\n[REDACTED:base64:github-token#1]');
  });

  it('handles 4× the output in about 4× the time, whatever it repeats (the issue: `echo sk-sk-sk-…`)', () => {
    const handler = redactHandler(createRedactor(createSecretScanner()));
    const event = (text: string) => ({ content: [{ type: 'text', text }], details: { stdout: text }, partial: false }) as unknown as ToolResultEvent;
    for (const unit of ['sk-', 'eyJ-', 'key=']) {
      const g = growth((t) => handler(event(t)), unit);
      const again = g.ok ? g : growth((t) => handler(event(t)), unit);
      expect(again.ok, `${unit}: ${again.small.toFixed(2)} ms → ${again.large.toFixed(2)} ms`).toBe(true);
    }
  }, scaledMs(60_000));

  it('declares its hook in the manifest', async () => {
    const { default: pkg } = await import('../package.json', { with: { type: 'json' } });
    expect(pkg.airlock.provides).toEqual({ tools: [], hooks: ['tool_result:redact'] });
  });
});

describe("the values of the user's secret files (issue 19's second line of defence)", () => {
  function loadWithFiles(secretFiles: 'load' | 'none') {
    const base = makeTempDir('redact-files-');
    mkdirSync(join(base, 'home'));
    mkdirSync(join(base, 'work'));
    writeFileSync(join(base, 'home', '.pgpass'), 'db:5432:app:app:pg-plain-pass\n');
    writeFileSync(join(base, 'work', '.env'), 'DB_PASSWORD=hunter2hunter2\nDEBUG=true\n');
    const kernel = createKernel({ updateThrottleMs: 0 });
    kernel.registry.register(shell, { source: 'sdk' });
    const resolved = Value.Convert(extension.options, Value.Default(extension.options, { envFrom: 'none', secretFiles }));
    const api = { on: kernel.on, env: { HOME: join(base, 'home') }, cwd: join(base, 'work') } as Partial<ExtensionAPI> as ExtensionAPI;
    void extension.setup(api, resolved as never);
    return async (out: string) => {
      const msg = await kernel.executeToolCall({ id: 'c1', name: 'sh', arguments: { out } });
      return { text: msg.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'), details: msg.details as Record<string, unknown> };
    };
  }

  it('redacts them wherever they appear (git log -p of a committed .env), with their hashes in details', async () => {
    const out = '+DB_PASSWORD=hunter2hunter2\n+DEBUG=true\npsql: password pg-plain-pass rejected';
    const { text, details } = await loadWithFiles('load')(out);
    expect(text).toBe('+DB_PASSWORD=[REDACTED:file:.env:DB_PASSWORD#1]\n+DEBUG=true\npsql: password [REDACTED:file:~/.pgpass:password#1] rejected');
    expect(details.airlockRedactions).toMatchObject({ '[REDACTED:file:.env:DB_PASSWORD#1]': sha256('hunter2hunter2') });
    const off = await loadWithFiles('none')(out);
    expect(off.text).toContain('hunter2hunter2');
  });
});

describe('allow patterns are the user\'s text: matched in linear time (issue 24 §3)', () => {
  it('every generated catastrophic pattern in the allowlist: the result answers as the patterns say', async () => {
    const { catastrophicPatterns } = await import('@airlock/kernel/testing');
    const cases = catastrophicPatterns();
    for (const c of cases) {
      const [re] = parseAllow([c.pattern]);
      expect(re, c.pattern).toBeInstanceOf(RegExp);
      expect((re as RegExp).test(c.evil), c.pattern).toBe(new RegExp(c.pattern).test(c.twin));
    }
    const patterns = [...cases.map((c) => c.pattern), '^(.*a){20}b$', '^(\\w+\\s?)*!$'];
    // Each pattern is tried against the token found: the answer comes, and is what the patterns say.
    const allowed = parseAllow(patterns).some((re) => (re as RegExp).test(GH));
    const all = load({ envFrom: 'none', allow: patterns });
    expect((await all({ out: `token ${GH}` })).text).toBe(allowed ? `token ${GH}` : 'token [REDACTED:github-token#1]');
    // 40 characters are enough to stall a backtracking engine on this one; the token stays redacted.
    const one = load({ envFrom: 'none', allow: ['^(.*a){20}b$'] });
    expect((await one({ out: `token ${GH}` })).text).toBe('token [REDACTED:github-token#1]');
  }, scaledMs(60_000));

  it('refuses an allow pattern with a lookaround or backreference, saying so', () => {
    expect(() => parseAllow(['/^ghp_(?!test)/'])).toThrow(/allow entry "\/\^ghp_\(\?!test\)\/" cannot be used: it uses a lookahead "\(\?!", which the linear-time engine .* cannot run\. Write an exact value, or fix the pattern\./);
    expect(() => parseAllow(['(ghp)_\\1'])).toThrow(/backreference/);
  });
});

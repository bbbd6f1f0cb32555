import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { rm } from 'node:fs/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, brokenPolicyMachine, extensionPackage, HELLO, sandbox } from './harness.js';

/**
 * Settings that load the hello-tool example, with a greeting of its own, and leave the built-in
 * tools out (settings add to the default set; "-name" leaves one out), so hello is the only tool.
 */
const helloSettings = {
  extensions: [{ path: HELLO, options: { greeting: 'Ahoy' } }, ...['read', 'bash', 'edit', 'write', 'grep', 'find', 'ls'].map((t) => `-@airlock/tool-${t}`)],
};

const json = (text: string): unknown => JSON.parse(text);

describe('airlock call', () => {
  it('runs a third-party TypeScript tool (with a relative import) named in the project settings', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    const r = await s.airlock(['--trust', 'call', 'hello', '{"name":"Ada"}']);
    expect(r).toMatchObject({ code: 0, stdout: 'Ahoy, Ada!\n' });
    expect(r.stderr).toContain('airlock: hello (call_1) → ok');
  });

  it('--json prints exactly the ToolResultMessage, as one JSON object', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    const r = await s.airlock(['--trust', '--json', 'call', 'hello', '{"name":"Ada","shout":true}', '--id', 'c-7']);
    expect(r.code).toBe(0);
    const message = json(r.stdout) as Record<string, unknown>;
    expect(Object.keys(message).sort()).toEqual(['content', 'details', 'isError', 'outcome', 'role', 'timestamp', 'toolCallId', 'toolName']);
    expect(message).toMatchObject({ role: 'toolResult', toolCallId: 'c-7', toolName: 'hello', outcome: 'ok', isError: false, content: [{ type: 'text', text: 'AHOY, ADA!' }] });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('reads the arguments from standard input with -', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    const r = await s.airlock(['--trust', 'call', 'hello', '-'], { stdin: '{"name":"Grace"}' });
    expect(r).toMatchObject({ code: 0, stdout: 'Ahoy, Grace!\n' });
  });

  it('exit code 1 for any outcome but ok: invalid arguments and unknown tools get results the model can act on', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    const invalid = await s.airlock(['--trust', '--json', 'call', 'hello', '{}']);
    expect(invalid.code).toBe(1);
    expect(json(invalid.stdout)).toMatchObject({ outcome: 'invalid', isError: true });
    const missing = await s.airlock(['--trust', 'call', 'helo', '{}']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('Did you mean: hello?');
    expect(missing.stderr).toContain('→ not found');
  });

  it('exit code 2 for usage errors: bad JSON arguments, unknown commands, bad flag values', async () => {
    const s = sandbox();
    const badJson = await s.airlock(['call', 'hello', '{name:']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('not valid JSON');
    expect((await s.airlock(['frobnicate'])).code).toBe(2);
    expect((await s.airlock(['--max-concurrency', '0', 'tools'])).code).toBe(2);
  });

  it('without settings the default set loads; what is not installed yet is said in one line, and nothing crashes', async () => {
    const s = sandbox();
    const r = await s.airlock(['--json', 'extensions']);
    expect(r.code).toBe(0);
    const report = json(r.stdout) as { extensions: { spec: string; status: string }[] };
    expect(report.extensions.map((e) => e.spec).sort()).toEqual(
      ['approval', 'audit-log', 'path-policy', 'redact-secrets', 'telemetry', 'tool-bash', 'tool-edit', 'tool-find', 'tool-grep', 'tool-ls', 'tool-read', 'tool-write'].map((n) => `@airlock/${n}`),
    );
    const missing = report.extensions.filter((e) => e.status === 'not-installed');
    const call = await s.airlock(['call', 'no_such_tool', '{}']);
    expect(call.code).toBe(1);
    expect(call.stdout).toContain('Tool "no_such_tool" not found');
    if (missing.length > 0) expect(call.stderr).toMatch(new RegExp(`${missing.length} default extensions? (is|are) not installed yet`));
  });

  it('read of a 3000x4000 photo: the model gets an image within 2000x2000 and the scale factor; with autoResize off, a note', async () => {
    const s = sandbox();
    const photo = await sharp({ create: { width: 3000, height: 4000, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
    writeFileSync(join(s.project, 'photo.jpg'), photo);
    const r = await s.airlock(['--json', 'call', 'read', '{"path":"photo.jpg"}']);
    expect(r.code).toBe(0);
    const message = json(r.stdout) as { content: { type: string; text?: string; data?: string; mimeType?: string }[] };
    const image = message.content.find((c) => c.type === 'image')!;
    expect(await sharp(Buffer.from(image.data!, 'base64')).metadata()).toMatchObject({ width: 1500, height: 2000, format: 'jpeg' });
    const texts = message.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    expect(texts).toContain('Read image file [image/jpeg, 3000x4000');
    expect(texts).toContain('original 3000x4000 px, shown at 1500x2000 (scale 0.5)');
    expect(texts).toContain('by 2 to get the original');

    s.write('project/.airlockrc.json', { images: { autoResize: false } });
    const off = await s.airlock(['--json', 'call', 'read', '{"path":"photo.jpg"}']);
    const offMessage = json(off.stdout) as { content: { type: string; text?: string }[] };
    expect(offMessage.content.map((c) => c.type)).toEqual(['text', 'text']);
    expect(offMessage.content[1]!.text).toContain('over the image limits (2000x2000 px');
    expect(offMessage.content[1]!.text).toContain('images.autoResize');
  });

  it('a reader that closes the pipe early (`airlock … | head`) gets no stack trace and no failure', async () => {
    const s = sandbox();
    // 2 MB of output: far more than a pipe holds, so the CLI is still writing when the reader leaves.
    s.write('project/long.txt', 'a line of text\n'.repeat(140_000));
    s.write('project/.airlockrc.json', { limits: { maxLines: 1_000_000, maxBytes: 10_000_000 } });
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config') };
    const child = spawn(process.execPath, [BIN, 'call', 'read', '{"path":"long.txt"}'], { cwd: s.project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('a reader that leaves before the call ends never costs its record or its exit code (`airlock call … 2>&1 >/dev/null | head -1`)', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'hello\n');
    s.write('project/.git/HEAD', 'ref: refs/heads/main\n');
    // A policy extension the settings name is missing: the call is refused, after several lines on stderr.
    s.write('project/.airlockrc.json', { extensions: ['airlock-not-installed'] });
    expect((await s.airlock(['trust'])).code).toBe(0);
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), XDG_STATE_HOME: join(s.home, '.local/state') };
    for (let run = 1; run <= 3; run++) {
      const child = spawn(process.execPath, [BIN, 'call', 'read', '{"path":"notes.txt"}'], { cwd: s.project, env, stdio: ['ignore', 'ignore', 'pipe'] });
      // The reader takes the first chunk and goes, as `head -1` does.
      child.stderr.once('data', () => child.stderr.destroy());
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
    }
    const verify = await s.airlock(['audit', 'verify'], { env: { XDG_STATE_HOME: join(s.home, '.local/state') } });
    expect(verify.stdout + verify.stderr).toMatch(/intact/);
    const logs = readdirSync(join(s.home, '.local/state/airlock/audit'));
    const records = readFileSync(join(s.home, '.local/state/airlock/audit', logs[0]!, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { tool?: string; outcome?: string });
    expect(records.filter((r) => r.tool === 'read' && r.outcome === 'denied')).toHaveLength(3);
    expect(readdirSync(join(s.home, '.local/state/airlock/audit', logs[0]!))).not.toContain('audit.jsonl.lock');
  });

  it('`airlock audit tail -f | head -1`: the follower ends when its reader leaves', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'hello\n');
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), XDG_STATE_HOME: join(s.home, '.local/state') };
    expect((await s.airlock(['call', 'read', '{"path":"notes.txt"}'], { env: { XDG_STATE_HOME: env.XDG_STATE_HOME } })).code).toBe(0);
    const child = spawn(process.execPath, [BIN, 'audit', 'tail', '-f'], { cwd: s.project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => child.stdout.destroy());
    // A record written after the reader left makes the follower write again (and meet the closed pipe).
    const later = new Promise<unknown>((resolve) => setTimeout(() => resolve(s.airlock(['call', 'read', '{"path":"notes.txt"}'], { env: { XDG_STATE_HOME: env.XDG_STATE_HOME } })), 500));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // That call ends before the test does: it writes into the sandbox, which is removed afterwards.
    await later;
    expect(code).toBe(0);
  });

  it('--help works for every command', async () => {
    const s = sandbox();
    for (const command of ['run', 'call', 'batch', 'tools', 'extensions', 'trust', 'sessions', 'replay', 'mcp', 'serve']) {
      const r = await s.airlock([command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: airlock ${command}`);
    }
  });
});

describe('airlock batch', () => {
  const batch = [
    { id: 'a', name: 'hello', arguments: { name: 'Ada' } },
    { name: 'nope', arguments: {} },
    { id: 'c', name: 'hello', arguments: { name: 'Alan' } },
  ];

  it('prints the results in source order; exit 1 when any is not ok', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    s.write('project/batch.json', batch);
    const r = await s.airlock(['--trust', '--json', 'batch', 'batch.json']);
    expect(r.code).toBe(1);
    const messages = json(r.stdout) as { toolCallId: string; outcome: string }[];
    expect(messages.map((m) => [m.toolCallId, m.outcome])).toEqual([
      ['a', 'ok'],
      ['call_2', 'not_found'],
      ['c', 'ok'],
    ]);
  });

  it('--events prints a JSON line for every event and then every result message', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    const r = await s.airlock(['--trust', 'batch', '-', '--events'], { stdin: JSON.stringify(batch) });
    const lines = r.stdout.trim().split('\n').map((l) => json(l) as { type?: string; role?: string; toolCallId: string });
    const count = (type: string) => lines.filter((l) => l.type === type).length;
    expect(count('tool_execution_start')).toBe(3);
    expect(count('tool_execution_end')).toBe(3);
    expect(count('tool_decision')).toBe(2);
    expect(lines.slice(-3).map((l) => [l.role, l.toolCallId])).toEqual([
      ['toolResult', 'a'],
      ['toolResult', 'call_2'],
      ['toolResult', 'c'],
    ]);
  });

  it('a batch that is not an array of calls is a usage error', async () => {
    const s = sandbox();
    const r = await s.airlock(['batch', '-'], { stdin: '{"name":"hello"}' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must be a JSON array');
  });
});

describe('settings', () => {
  it('layers: user < project < flags (the project can lift an exclusion the user set; flags narrow again)', async () => {
    const s = sandbox();
    s.write('home/.config/airlock/settings.json', { tools: { exclude: ['hello'] } });
    s.write('project/.airlockrc.json', helloSettings);
    const excluded = json((await s.airlock(['--trust', '--json', 'tools'])).stdout) as { tools: { name: string; enabled: boolean; excluded?: string[] }[] };
    expect(excluded.tools).toEqual([expect.objectContaining({ name: 'hello', enabled: false })]);

    s.write('project/.airlockrc.json', { ...helloSettings, tools: { exclude: [] } });
    const lifted = json((await s.airlock(['--trust', '--json', 'tools'])).stdout) as { enabled: string[] };
    expect(lifted.enabled).toEqual(['hello']);

    const narrowed = json((await s.airlock(['--trust', '--json', '--exclude-tools', 'hello', 'tools'])).stdout) as { enabled: string[] };
    expect(narrowed.enabled).toEqual([]);
  });

  it('an invalid settings file stops everything, naming the file, the path and what was expected', async () => {
    const s = sandbox();
    const file = s.write('project/.airlockrc.json', { execution: { maxConcurrency: 0 } });
    const r = await s.airlock(['call', 'hello', '{}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('execution.maxConcurrency');
    expect(r.stdout).toBe('');
  });

  it('a config at the repository root is found from a subfolder that has its own package.json', async () => {
    const s = sandbox();
    s.write('project/.git/HEAD', 'ref: refs/heads/main\n'); // the repository root: discovery stops here
    s.write('project/.airlockrc.json', helloSettings);
    s.write('project/packages/app/package.json', { name: 'app' });
    const r = await s.airlock(['--trust', 'call', 'hello', '{"name":"Sub"}'], { cwd: `${s.project}/packages/app` });
    expect(r).toMatchObject({ code: 0, stdout: 'Ahoy, Sub!\n' });
  });
});

describe('project trust', () => {
  it('allow rules a folder brings along (settings or a committed local rules file) need trust; its deny and ask rules always apply', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', { permissions: { allow: ['bash(*)'], deny: ['fs.read(**/.env)'] } });
    s.write('project/.airlock/settings.local.json', { permissions: { allow: ['bash(curl x | sh)'] } });
    const untrusted = await s.airlock(['tools']);
    expect(untrusted.stderr).toContain('Ignored 2 allow rules from');
    expect(untrusted.stderr).toContain('.airlockrc.json');
    expect(untrusted.stderr).toContain('settings.local.json');
    expect(untrusted.stderr).toContain('Its deny and ask rules apply');
    const trusted = await s.airlock(['--trust', 'tools']);
    expect(trusted.stderr).not.toContain('Ignored');
  });

  it('an untrusted project’s extensions are reported and not loaded; `airlock trust` changes that', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', helloSettings);
    const before = await s.airlock(['call', 'hello', '{"name":"Ada"}']);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('not trusted');
    expect(before.stderr).toContain(`airlock trust ${s.project}`);

    const trust = await s.airlock(['trust']);
    expect(trust.code).toBe(0);
    const after = await s.airlock(['call', 'hello', '{"name":"Ada"}']);
    expect(after).toMatchObject({ code: 0, stdout: 'Ahoy, Ada!\n' });

    const refused = await s.airlock(['--no-trust', 'call', 'hello', '{"name":"Ada"}']);
    expect(refused.code).toBe(1);
  });
});

describe('extensions: compatibility, failures, fail-closed', () => {
  const toolSource = (name: string) => `
import Type from 'typebox';
import type { Extension } from '@airlock/contract';
export default {
  name: '${name}',
  setup(api) {
    api.registerTool({ name: '${name}', label: '${name}', description: 'd', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: '${name} ran' }] }) });
  },
} satisfies Extension;
`;

  it('an incompatible range and an invalid range are two different, clear errors; the rest loads and runs, since both packages bring only tools', async () => {
    const s = sandbox();
    const future = extensionPackage(s, 'exts/future', { name: 'future-ext', kernel: '^2.0.0', source: toolSource('future') });
    const broken = extensionPackage(s, 'exts/broken', { name: 'broken-range', kernel: 'banana', source: toolSource('broken') });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: future }, { path: broken }, { path: HELLO }] });
    const r = await s.airlock(['--json', 'extensions']);
    // Named in settings and not loaded: `airlock extensions` says so in its exit code. Their
    // manifests say they bring only tools, so only those are missing: hello runs, with a warning.
    expect(r.code).toBe(2);
    const call = await s.airlock(['call', 'hello', '{"name":"x"}']);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stderr).toContain('future-ext');
    expect(call.stderr).toContain('broken-range');
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: future, optional: true }, { path: broken, optional: true }, { path: HELLO }] });
    const report = json(r.stdout) as { extensions: { name: string; status: string; compatible?: boolean }[]; diagnostics: { code: string; message: string }[] };
    const codes = report.diagnostics.map((d) => d.code);
    expect(codes).toContain('AIRLOCK_EXTENSION_INCOMPATIBLE');
    expect(codes).toContain('AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID');
    for (const d of report.diagnostics.filter((d) => d.code.includes('KERNEL') || d.code.includes('INCOMPATIBLE'))) expect(d.message).toContain('1.0.0');
    expect(report.extensions.find((e) => e.name === 'hello-tool')?.status).toBe('loaded');
    expect((await s.airlock(['call', 'hello', '{"name":"x"}'])).code).toBe(0);
  });

  it('an extension may import defineExtension and defineTool at run time: it gets the host’s own kernel', async () => {
    const s = sandbox();
    const ext = extensionPackage(s, 'exts/defined', {
      name: 'defined',
      source: `import Type from 'typebox';
import { defineExtension, defineTool } from '@airlock/contract';
import { KERNEL_VERSION } from '@airlock/kernel';
export default defineExtension({
  name: 'defined',
  options: Type.Object({ suffix: Type.String({ default: '!' }) }),
  setup(api, { suffix }) {
    api.registerTool(defineTool({
      name: 'kernel_version', label: 'Kernel version', description: 'Say which kernel runs this tool.',
      parameters: Type.Object({}),
      execute: async () => ({ content: [{ type: 'text', text: KERNEL_VERSION + '/' + api.kernelVersion + suffix }] }),
    }));
  },
});
`,
    });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: ext }] });
    const r = await s.airlock(['call', 'kernel_version']);
    expect(r).toMatchObject({ code: 0, stdout: '1.0.0/1.0.0!\n' });
  });

  // What a failed setup costs follows the manifest: a package that says it brings only tools
  // loses those tools; a policy package, or one whose kind cannot be read, stops every tool.
  const throwers = [
    { kind: 'brings only tools', manifest: { tools: ['weather'] }, blocks: false },
    { kind: 'has an authorize hook (a policy package)', manifest: { tools: ['weather'], hooks: ['tool_call:authorize'] }, blocks: true },
    { kind: 'declares no provides (its kind cannot be read)', manifest: { provides: false as const }, blocks: true },
  ];
  for (const t of throwers) {
    it(`an extension that ${t.kind} and throws in setup: ${t.blocks ? 'no tool runs, unless its entry is optional' : 'a built-in tool still runs, with a warning naming it'}`, async () => {
      const s = sandbox();
      s.write('project/notes.txt', 'kept\n');
      const thrower = extensionPackage(s, 'exts/thrower', {
        name: 'thrower',
        ...t.manifest,
        source: `export default { name: 'thrower', setup() { throw new Error('config file missing'); } };\n`,
      });
      s.write('home/.config/airlock/settings.json', { extensions: ['@airlock/tool-read', { path: thrower }] });
      const r = await s.airlock(['call', 'read', '{"path":"notes.txt"}']);
      expect(r.stderr).toContain('thrower');
      expect(r.stderr).toContain('config file missing');
      if (!t.blocks) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('kept');
        // Its own tool is the only loss, and the model is told it is not there.
        const own = await s.airlock(['--json', 'call', 'weather', '{}']);
        expect(own.code).toBe(1);
        expect(json(own.stdout)).toMatchObject({ outcome: 'not_found' });
        return;
      }
      expect(r.code).toBe(1);
      expect(r.stdout).not.toContain('kept');
      expect(r.stderr).toContain('No tool may run');
      if (t.manifest.hooks !== undefined) return; // a policy package blocks even when optional
      s.write('home/.config/airlock/settings.json', { extensions: ['@airlock/tool-read', { path: thrower, optional: true }] });
      const optional = await s.airlock(['call', 'read', '{"path":"notes.txt"}']);
      expect(optional.code, optional.stderr).toBe(0);
      expect(optional.stdout).toContain('kept');
      expect(optional.stderr).toContain('config file missing');
    });
  }

  it('fail closed: when a policy extension fails to load, no tool runs, and the message says how to fix it', async () => {
    const s = sandbox();
    onTestFinished(() => rm(s.base, { recursive: true, force: true }));
    brokenPolicyMachine(s);
    // The host refuses each call (the kernel does, whoever calls): a denied result, not a crash.
    const call = await s.airlock(['--json', 'call', 'hello', '{"name":"x"}']);
    expect(call.code).toBe(1);
    const refused = json(call.stdout) as { outcome: string; content: { text: string }[] };
    expect(refused.outcome).toBe('denied');
    expect(refused.content[0]!.text).toContain('no tool may run in this session');
    expect(refused.content[0]!.text).toContain('"guard"');
    expect(refused.content[0]!.text).toContain('rules file is corrupt');
    expect(call.stdout).not.toContain('Hello');
    expect(call.stderr).toContain('No tool may run');
    expect(call.stderr).toContain('rules file is corrupt');
    s.write('project/batch.json', [{ name: 'hello', arguments: { name: 'a' } }, { name: 'hello', arguments: { name: 'b' } }]);
    const batch = await s.airlock(['--json', 'batch', 'batch.json']);
    expect(batch.code).toBe(1);
    const messages = json(batch.stdout) as { outcome: string; content: { text: string }[] }[];
    expect(messages.map((m) => m.outcome)).toEqual(['denied', 'denied']);
    for (const m of messages) expect(m.content[0]!.text).toContain('"guard"');
    const listing = await s.airlock(['extensions']);
    expect(listing.code).toBe(2);
    expect(listing.stdout).toContain('NO TOOL WILL RUN');
  });
});

describe('the default policy set through the real binary', () => {
  it('redacts a token format and the value of a secret variable of the environment Airlock runs in', async () => {
    const s = sandbox();
    const secret = 'q7Vx2LmP9rT4wZ8kB3nD';
    const command = `echo ghp_0123456789abcdefABCDEF0123456789abcd; printf '%s\\n' ${secret}`;
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command })], { env: { DEPLOY_TOKEN: secret } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('[REDACTED:github-token#1]');
    expect(r.stdout).toContain('[REDACTED:env:DEPLOY_TOKEN#1]');
    expect(r.stdout).not.toContain(secret);
  });

  it('denies reading a secret file, naming the rule and how to allow exactly that file', async () => {
    const s = sandbox();
    s.write('project/.env', 'TOKEN=1\n');
    const r = await s.airlock(['--json', 'call', 'read', '{"path":".env"}']);
    expect(r.code).toBe(1);
    const message = json(r.stdout) as { outcome: string; content: { text: string }[] };
    expect(message.outcome).toBe('denied');
    expect(message.content[0]!.text).toContain('default:secret-read');
    expect(message.content[0]!.text).toContain('fs.read(//');
  });
});

describe('fail closed at run time', () => {
  /** A user-level policy extension whose authorize handler misbehaves in the given way. */
  function misbehaving(body: string, options = '') {
    const s = sandbox();
    const guard = extensionPackage(s, 'exts/guard', {
      name: 'guard',
      hooks: ['tool_call:authorize'],
      source: `export default { name: 'guard', setup(api) {
  api.on('tool_call', async () => { ${body} }, { name: 'check', phase: 'authorize'${options} });
} };
`,
    });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: HELLO }, { path: guard }] });
    return s;
  }

  it('a policy handler that throws: the call is denied, naming the handler, and nothing runs', async () => {
    const r = await misbehaving("throw new Error('policy database offline');").airlock(['--json', 'call', 'hello', '{"name":"x"}']);
    expect(r.code).toBe(1);
    const message = json(r.stdout) as { outcome: string; content: { text: string }[] };
    expect(message.outcome).toBe('denied');
    expect(message.content[0]!.text).toContain('guard/check');
    expect(message.content[0]!.text).toContain('policy database offline');
  });

  it('a policy handler that never answers: denied when its time limit passes', async () => {
    const r = await misbehaving('await new Promise(() => {});', ', timeoutMs: 300').airlock(['--json', 'call', 'hello', '{"name":"x"}']);
    expect(r.code).toBe(1);
    const message = json(r.stdout) as { outcome: string; content: { text: string }[] };
    expect(message.outcome).toBe('denied');
    expect(message.content[0]!.text).toMatch(/guard\/check.*(time|300 ms)/s);
  });
});

describe('arguments nested too deep', () => {
  it('airlock batch --events with 200,000 levels: that call is invalid with a message about depth, the next one runs, every line is JSON', async () => {
    const s = sandbox();
    onTestFinished(() => rm(s.base, { recursive: true, force: true }));
    s.write('home/.config/airlock/settings.json', helloSettings);
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    s.write('project/deep.json', `[{"id":"deep","name":"hello","arguments":{"name":${deep}}},{"id":"flat","name":"hello","arguments":{"name":"Ada"}}]`);
    const r = await s.airlock(['batch', '--events', 'deep.json']);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trim().split('\n').map((l) => json(l) as { role?: string; outcome?: string; toolCallId?: string; content?: { text: string }[] });
    const results = lines.filter((l) => l.role === 'toolResult');
    expect(results.map((m) => [m.toolCallId, m.outcome])).toEqual([['deep', 'invalid'], ['flat', 'ok']]);
    expect(results[0]!.content![0]!.text).toContain('nest deeper than 100 levels');
    expect(results[1]!.content![0]!.text).toBe('Ahoy, Ada!');
    expect(r.stderr).not.toContain('Maximum call stack');
  });
});

describe('selection flags', () => {
  it('--tools, --no-tools, --exclude-tools and --no-builtin-tools, alone and combined', async () => {
    const s = sandbox();
    s.write('home/.config/airlock/settings.json', helloSettings);
    const enabled = async (...flags: string[]) => (json((await s.airlock([...flags, '--json', 'tools'])).stdout) as { enabled: string[] }).enabled;
    expect(await enabled()).toEqual(['hello']);
    expect(await enabled('--no-tools')).toEqual([]);
    expect(await enabled('--tools', '')).toEqual([]);
    expect(await enabled('--tools', 'hello')).toEqual(['hello']);
    expect(await enabled('--tools', 'hello', '--exclude-tools', 'hello')).toEqual([]);
    expect(await enabled('--no-builtin-tools')).toEqual(['hello']);
    const none = await s.airlock(['--no-tools', 'call', 'hello', '{"name":"x"}']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('not available in this session');
  });

  it('tools --provider prints each API’s exact definitions as valid JSON', async () => {
    const s = sandbox();
    s.write('home/.config/airlock/settings.json', helloSettings);
    const openai = json((await s.airlock(['tools', '--provider', 'openai'])).stdout) as unknown[];
    expect(openai).toEqual([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'hello' }) })]);
    const gemini = json((await s.airlock(['tools', '--provider', 'gemini'])).stdout) as { parameters: { type: string } }[];
    expect(gemini[0]!.parameters.type).toBe('OBJECT');
  });
});

describe('--json is valid JSON everywhere', () => {
  it('every command prints exactly one parseable JSON document on stdout', async () => {
    const s = sandbox();
    s.write('home/.config/airlock/settings.json', helloSettings);
    s.write('project/batch.json', [{ name: 'hello', arguments: { name: 'x' } }]);
    const runs = [
      ['--json', 'call', 'hello', '{"name":"x"}'],
      ['--json', 'call', 'missing', '{}'],
      ['--json', 'batch', 'batch.json'],
      ['--json', 'tools'],
      ['--json', 'extensions'],
      ['--json', 'trust'],
      ['--json', '--trust', 'tools'],
    ];
    for (const args of runs) {
      const r = await s.airlock(args);
      expect(() => JSON.parse(r.stdout), `airlock ${args.join(' ')}`).not.toThrow();
      expect(r.stdout.trim().split('\n'), `airlock ${args.join(' ')}`).toHaveLength(1);
    }
  });
});


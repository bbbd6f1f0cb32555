import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * Settings say what they mean, through the real CLI in-process: naming an extension adds it to
 * the default set (policy and audit stay), leaving one out takes an explicit "-name" and is
 * warned about, a named extension that cannot be found or loaded blocks every tool (with a "did
 * you mean"), unless its entry is optional, and `airlock extensions` exits non-zero then.
 */

// Each call opens a host that loads the whole default set (~3 s on a busy 2-core machine).
vi.setConfig({ testTimeout: scaledMs(90_000) });

const HELLO = join(import.meta.dirname, '../../../examples/hello-tool');

/** A home and a project folder of their own; user settings written as given. */
function machine(user: object | undefined, project?: object) {
  const base = makeTempDir('airlock-cli-settings-ext-');
  const home = join(base, 'home');
  const dir = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT\n');
  writeFileSync(join(dir, 'notes.txt'), 'plain notes\n');
  if (user !== undefined) writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify(user));
  if (project !== undefined) writeFileSync(join(dir, '.airlockrc.json'), JSON.stringify(project));
  const auditDir = join(home, '.state', 'airlock');
  const airlock = async (args: string[]) => {
    const io = testIO(dir, home);
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  const auditFiles = () => (existsSync(auditDir) ? (readdirSync(auditDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.jsonl')) : []);
  return { home, dir, airlock, auditFiles };
}

const DENY_SECRET = { deny: ['fs.read(**/secret.txt)'] };

describe.sequential('the default set is additive', () => {
  it("a tool named alone in the user settings leaves policy, audit and the built-in tools in place", async () => {
    const m = machine({ extensions: [HELLO], permissions: DENY_SECRET });
    const hello = await m.airlock(['call', 'hello', '{"name":"Ada"}']);
    expect(hello.code).toBe(0);
    expect(hello.out).toContain('Ada');
    // path-policy still judges: the deny rule holds, the file's bytes never show.
    const secret = await m.airlock(['call', 'read', '{"path":"secret.txt"}']);
    expect(secret.code).toBe(1);
    expect(secret.out).not.toContain('TOP-SECRET-CONTENT');
    expect(secret.out).toMatch(/denied|deny/i);
    // The built-in read still works for anything else, and the audit log records the calls.
    const notes = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(notes.code).toBe(0);
    expect(notes.out).toContain('plain notes');
    expect(m.auditFiles().length).toBeGreaterThan(0);
    const list = await m.airlock(['--json', 'extensions']);
    const names = (JSON.parse(list.out) as { extensions: { name: string; status: string }[] }).extensions.filter((e) => e.status === 'loaded').map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['path-policy', 'audit-log', 'approval', 'redact-secrets', 'hello-tool']));
  });

  it('"-@airlock/audit-log" leaves the audit log out, with a warning on every run', async () => {
    const m = machine({ extensions: ['-@airlock/audit-log'] });
    for (let i = 0; i < 2; i++) {
      const r = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
      expect(r.code).toBe(0);
      expect(r.out).toContain('plain notes');
      expect(r.err).toContain('@airlock/audit-log');
      expect(r.err).toMatch(/leave out a guard/);
      expect(r.err.match(/less protected/g)?.length).toBe(1);
    }
    expect(m.auditFiles()).toEqual([]);
  });

  it('{ "enabled": false } on a default guard is the same as "-name" (and is warned about too)', async () => {
    const m = machine({ extensions: [{ name: '@airlock/path-policy', enabled: false }], permissions: DENY_SECRET });
    const r = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/"@airlock\/path-policy".*no permission rule/);
  });

  it("an untrusted project cannot leave path-policy out: its deny rules and the user's still hold", async () => {
    const m = machine({ permissions: DENY_SECRET }, { extensions: ['-@airlock/path-policy', '-@airlock/audit-log'] });
    const r = await m.airlock(['call', 'read', '{"path":"secret.txt"}']);
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('TOP-SECRET-CONTENT');
    expect(r.err).not.toMatch(/less protected/);
    expect(m.auditFiles().length).toBeGreaterThan(0);
  });

  it('naming a default again configures it in place (no second copy, no warning)', async () => {
    const m = machine({ extensions: [{ name: '@airlock/tool-read', options: {} }] });
    const list = await m.airlock(['--json', 'extensions']);
    expect(list.code).toBe(0);
    const records = (JSON.parse(list.out) as { extensions: { name: string; status: string; layer: string }[] }).extensions.filter((e) => e.name === 'tool-read' || e.name === '@airlock/tool-read');
    expect(records).toEqual([expect.objectContaining({ status: 'loaded', layer: 'user' })]);
  });
});

describe.sequential('a named extension that cannot be found or loaded blocks every tool', () => {
  it('a typo blocks every call and says which name was meant', async () => {
    const m = machine({ extensions: ['@airlock/path-polcy'] });
    const r = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(r.code).not.toBe(0);
    expect(r.out).not.toContain('plain notes');
    expect(r.out + r.err).toContain('Did you mean "@airlock/path-policy"?');
  });

  // A package whose manifest says it brings only tools costs only those tools (issue 28): no guard
  // is lost with it. One that could be a guard blocks (fail-closed-host.test.ts has every kind).
  it('a tools-only extension whose setup throws costs only its own tools, with a warning naming it', async () => {
    const m = machine(undefined);
    const ext = join(m.dir, '..', 'broken');
    mkdirSync(join(ext, 'src'), { recursive: true });
    writeFileSync(join(ext, 'package.json'), JSON.stringify({ name: 'broken-tool', version: '1.0.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['wc'] } } }));
    writeFileSync(join(ext, 'src/index.ts'), "export default { name: 'broken-tool', setup() { throw new Error('no config found'); } };\n");
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [ext] }));
    const r = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('plain notes');
    expect(r.err).toContain('broken-tool');
    expect(r.err).toContain('no config found');
    const own = await m.airlock(['call', 'wc', '{}']);
    expect(own.code).not.toBe(0);
    writeFileSync(join(ext, 'package.json'), JSON.stringify({ name: 'broken-tool', version: '1.0.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['wc'], hooks: ['tool_result:observe'] } } }));
    const guard = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(guard.code).not.toBe(0);
    expect(guard.out).not.toContain('plain notes');
    expect(guard.out + guard.err).toContain('"optional": true');
  });

  it('an entry marked optional is reported and the tools still run', async () => {
    const m = machine({ extensions: [{ name: '@acme/not-installed', optional: true }] });
    const r = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('plain notes');
    expect(r.err).toContain('@acme/not-installed');
  });
});

describe.sequential('airlock extensions', () => {
  it('exits non-zero when an extension failed, in human and JSON output', async () => {
    const m = machine({ extensions: ['@airlock/path-polcy'] });
    const human = await m.airlock(['extensions']);
    expect(human.code).toBe(2);
    expect(human.out).toContain('Did you mean "@airlock/path-policy"?');
    const json = await m.airlock(['--json', 'extensions']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out).blocked).not.toBeNull();
  });

  it('exits 0 when every extension loaded', async () => {
    const m = machine({ extensions: [HELLO] });
    const r = await m.airlock(['extensions']);
    expect(r.code).toBe(0);
  });

  it('exits non-zero for a failed optional extension too (it failed, though tools run)', async () => {
    const m = machine({ extensions: [{ name: '@acme/not-installed', optional: true }] });
    expect((await m.airlock(['extensions'])).code).toBe(2);
  });
});

describe.sequential('airlock tools on a blocked host', () => {
  it('says no tool can run and why, marks each enabled tool blocked, and exits 2 (it used to say "8 of 8 tools enabled")', async () => {
    const m = machine({ extensions: ['@airlock/path-polcy'] });
    const r = await m.airlock(['tools']);
    expect(r.code).toBe(2);
    expect(r.out).not.toMatch(/^\d+ of \d+ tools enabled\.$/m);
    expect(r.out).toMatch(/No tool can run: the extension "@airlock\/path-polcy" failed to load \(.+\), so every call is refused\. \d+ of \d+ tools would be enabled\. Fix: /);
    expect(r.out).toMatch(/^read\s+builtin\s+blocked\b/m);
    expect(r.out).not.toMatch(/^read\s+builtin\s+yes\b/m);
  });

  it('--json carries a blocked field naming the extension (null when healthy), with the same exit code', async () => {
    const broken = await machine({ extensions: ['@airlock/path-polcy'] }).airlock(['--json', 'tools']);
    expect(broken.code).toBe(2);
    const report = JSON.parse(broken.out) as { blocked: { extension: string; extensions: string[]; reason: string; fix: string } | null; enabled: string[] };
    expect(report.blocked).toMatchObject({ extension: '@airlock/path-polcy', extensions: ['@airlock/path-polcy'] });
    expect(report.blocked!.fix.length).toBeGreaterThan(0);
    const healthy = await machine({ extensions: [HELLO] }).airlock(['--json', 'tools']);
    expect(healthy.code).toBe(0);
    expect((JSON.parse(healthy.out) as { blocked: unknown }).blocked).toBeNull();
  });
});

describe.sequential('airlock doctor', () => {
  it('on a healthy setup: version, settings files, sandbox, audit log and every extension on one screen, exit 0', async () => {
    const m = machine({ extensions: [HELLO] });
    const r = await m.airlock(['doctor']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^Airlock \d+\.\d+\.\d+ \(kernel \d+\.\d+\.\d+\)$/m);
    expect(r.out).toContain(join(m.home, '.config', 'airlock', 'settings.json'));
    expect(r.out).toMatch(/^Sandbox: +(active|none|off)/m);
    expect(r.out).toMatch(/^Audit log: +\S+audit\.jsonl$/m);
    expect(r.out).toMatch(/^hello-tool\s+user\s+\S+\s+loaded$/m);
    expect(r.out).toMatch(/^path-policy\s+defaults\s+\S+\s+loaded$/m);
    // The test's PATH may leave bubblewrap out: then that is the one problem, a warning with its fix.
    expect(r.out).not.toMatch(/^error: /m);
    expect(r.out).toMatch(/^(No problems found\.|0 errors, \d+ warnings?\.)$/m);
  });

  it('on a broken setup: says no tool can run, lists the problem with its fix, exits 2; --json has the same', async () => {
    const m = machine({ extensions: ['@airlock/path-polcy'] });
    const r = await m.airlock(['doctor']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^NO TOOL CAN RUN: an extension your settings name failed to load/m);
    expect(r.out).toMatch(/^error: Extension "@airlock\/path-polcy" .* was not found\./m);
    // The fix is said once, with the block, not again with the extension's own problem.
    expect(r.out.match(/Fix: write "@airlock\/path-policy" instead/g)).toHaveLength(1);
    expect(r.out).toContain('Did you mean "@airlock/path-policy"?');
    expect(r.out).toMatch(/^ {2}Fix: /m);
    const json = await m.airlock(['--json', 'doctor']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.out) as { blocked: { extension: string; fix: string } | null; problems: { severity: string; fix?: string }[]; extensions: { name: string; state: string }[]; settingsFiles: { layer: string; exists: boolean }[] };
    expect(report.blocked?.extension).toBe('@airlock/path-polcy');
    // The extension's own problem is there; its fix is the block's.
    expect(report.problems.some((p) => p.severity === 'error')).toBe(true);
    expect(report.blocked?.fix).toContain('"@airlock/path-policy"');
    expect(report.extensions).toContainEqual(expect.objectContaining({ state: 'failed' }));
    expect(report.settingsFiles).toContainEqual({ layer: 'user', file: join(m.home, '.config', 'airlock', 'settings.json'), exists: true });
  });
});

/** A one-file extension package beside the project; returns its folder. */
function extensionBeside(m: ReturnType<typeof machine>, name: string, source: string): string {
  const ext = join(m.dir, '..', name);
  mkdirSync(join(ext, 'src'), { recursive: true });
  writeFileSync(join(ext, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0' } }));
  writeFileSync(join(ext, 'src/index.ts'), source);
  return ext;
}

const WORD_COUNT = (extra: string, params = "{ file: Type.String() }") => `import Type from 'typebox';
export default { name: 'wc', setup(api: any) {
  api.registerTool({
    name: 'wc', label: 'Word count', description: 'Count words.', ${extra}
    parameters: Type.Object(${params}),
    async execute(_id: string, p: any) { return { content: [{ type: 'text', text: 'words: 3 ' + JSON.stringify(p) }] }; },
  });
} };
`;

describe.sequential('unknown keys are errors, with the closest name', () => {
  it('a misspelled bash option blocks the tools and names the option meant', async () => {
    const m = machine({ extensions: [{ name: '@airlock/tool-bash', options: { comandPrefix: 'touch marker' } }] });
    const r = await m.airlock(['call', 'bash', '{"command":"touch ran"}']);
    expect(r.code).not.toBe(0);
    expect(existsSync(join(m.dir, 'ran'))).toBe(false);
    expect(r.out + r.err).toContain('Did you mean "commandPrefix"?');
  });

  it('a tool field spelled `mode` (for executionMode) fails the extension, saying which field was meant', async () => {
    const m = machine(undefined);
    const ext = extensionBeside(m, 'wc', WORD_COUNT("mode: 'sequential',"));
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [ext] }));
    const r = await m.airlock(['extensions']);
    expect(r.code).toBe(2);
    expect(r.out).toContain('Did you mean "executionMode"?');
  });

  it('an unknown rule kind (fs.raed) stops path-policy from loading, so nothing runs, and names fs.read', async () => {
    const m = machine({ permissions: { deny: ['fs.raed(**/secret.txt)'] } });
    const r = await m.airlock(['call', 'read', '{"path":"secret.txt"}']);
    expect(r.code).not.toBe(0);
    expect(r.out).not.toContain('TOP-SECRET-CONTENT');
    expect(r.out + r.err).toContain('Did you mean "fs.read"?');
  });

  it('an unknown settings key is an error naming the key meant', async () => {
    const m = machine({ permisions: DENY_SECRET });
    const r = await m.airlock(['call', 'read', '{"path":"secret.txt"}']);
    expect(r.code).toBe(2);
    expect(r.out).not.toContain('TOP-SECRET-CONTENT');
    expect(r.err).toContain('Did you mean "permissions"?');
  });
});

describe.sequential('a tool that takes a path but declares no resources()', () => {
  it('is warned about at load, and policy explain says its calls are judged by tool name only', async () => {
    const m = machine(undefined);
    const ext = extensionBeside(m, 'wc', WORD_COUNT(''));
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [ext] }));
    const list = await m.airlock(['extensions']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/Tool "wc" .* takes "file", which looks like a path, but declares no resources\(\)/);
    const explain = await m.airlock(['policy', 'explain', 'wc', '{"file":"secret.txt"}']);
    expect(explain.out).toContain('judged by tool name only');
  });

  it('a tool without path-like parameters is not warned about', async () => {
    const m = machine(undefined);
    const ext = extensionBeside(m, 'wc', WORD_COUNT('', '{ text: Type.String() }'));
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [ext] }));
    const list = await m.airlock(['extensions']);
    expect(list.out).not.toContain('declares no resources()');
  });
});

describe.sequential('bash commandPrefix', () => {
  const withPrefix = (commandPrefix: string, more: object = {}) => ({ extensions: [{ name: '@airlock/tool-bash', options: { commandPrefix } }], ...more });

  it('runs before every command, in the same shell', async () => {
    const m = machine(withPrefix('GREETING=from-prefix; cd sub'));
    mkdirSync(join(m.dir, 'sub'));
    const r = await m.airlock(['call', 'bash', '{"command":"echo \\"$GREETING in $(basename \\"$PWD\\")\\""}']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('from-prefix in sub');
  });

  it('is judged with the command: a prefix that reads a denied file blocks the call before anything runs', async () => {
    const m = machine(withPrefix('cat secret.txt > leaked.txt', { permissions: DENY_SECRET }));
    const r = await m.airlock(['call', 'bash', '{"command":"echo hi > said.txt"}']);
    expect(r.code).toBe(1);
    expect(existsSync(join(m.dir, 'leaked.txt'))).toBe(false);
    expect(existsSync(join(m.dir, 'said.txt'))).toBe(false);
    expect(r.out).toContain('secret.txt');
  });

  it('runs inside the sandbox with the command', async () => {
    const m = machine(withPrefix('echo "prefix pid namespace: $(readlink /proc/self/ns/pid)"'));
    const r = await m.airlock(['--json', 'call', 'bash', '{"command":"echo \\"command pid namespace: $(readlink /proc/self/ns/pid)\\""}']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.out) as { details?: { sandboxed?: boolean }; content: { text: string }[] };
    const text = result.content.map((c) => c.text).join('');
    const ns = [...text.matchAll(/pid namespace: (\S+)/g)].map((x) => x[1]);
    expect(ns).toHaveLength(2);
    expect(ns[0]).toBe(ns[1]);
    // Where the sandbox is up (bubblewrap works here), both ran in its pid namespace, not Airlock's.
    if (result.details?.sandboxed === true) expect(ns[0]).not.toBe(readlinkSync('/proc/self/ns/pid'));
    else expect(r.err).toMatch(/sandbox/i);
  });

  it("an untrusted project's prefix never runs", async () => {
    const m = machine(undefined, { extensions: [{ name: '@airlock/tool-bash', options: { commandPrefix: 'touch pwned' } }] });
    const r = await m.airlock(['call', 'bash', '{"command":"echo ok"}']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('ok');
    expect(existsSync(join(m.dir, 'pwned'))).toBe(false);
  });
});

describe.sequential('single-file extensions', () => {
  const TOOL = (name: string, marker?: string) => `import Type from 'typebox';
${marker === undefined ? '' : `import { writeFileSync } from 'node:fs';\n`}export default { name: '${name}', setup(api: any) {
  ${marker === undefined ? '' : `writeFileSync(${JSON.stringify(marker)}, 'setup ran');`}
  api.registerTool({
    name: '${name}', label: '${name}', description: 'Say hi.',
    parameters: Type.Object({ who: Type.String() }),
    async execute(_id: string, p: { who: string }) { return { content: [{ type: 'text', text: '${name} says hi to ' + p.who }] }; },
  });
} };
`;

  it('a .ts and a .js file named in user settings (relative to the settings file) load like packages', async () => {
    const m = machine(undefined);
    const tools = join(m.home, '.config', 'airlock', 'tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'greet.ts'), TOOL('greet'));
    writeFileSync(join(tools, 'wave.mjs'), TOOL('wave').replace("import Type from 'typebox';", "import Type from 'typebox';").replace(/\(_id: string, p: \{ who: string \}\)/, '(_id, p)').replace('(api: any)', '(api)'));
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: ['./tools/greet.ts', './tools/wave.mjs'] }));
    const greet = await m.airlock(['call', 'greet', '{"who":"Ada"}']);
    expect(greet.code).toBe(0);
    expect(greet.out).toContain('greet says hi to Ada');
    const wave = await m.airlock(['call', 'wave', '{"who":"Bo"}']);
    expect(wave.code).toBe(0);
    expect(wave.out).toContain('wave says hi to Bo');
    const list = JSON.parse((await m.airlock(['--json', 'extensions'])).out) as { extensions: { name: string; status: string }[] };
    expect(list.extensions.filter((e) => e.name === 'greet' || e.name === 'wave').map((e) => e.status)).toEqual(['loaded', 'loaded']);
  });

  it("an untrusted project's file never loads (its setup never runs); trusted, it does", async () => {
    const m = machine(undefined, { extensions: ['./greet.ts'] });
    const marker = join(m.dir, '..', 'setup-ran');
    writeFileSync(join(m.dir, 'greet.ts'), TOOL('greet', marker));
    const untrusted = await m.airlock(['call', 'greet', '{"who":"Ada"}']);
    expect(untrusted.code).not.toBe(0);
    expect(existsSync(marker)).toBe(false);
    const trusted = await m.airlock(['--trust', 'call', 'greet', '{"who":"Ada"}']);
    expect(trusted.code).toBe(0);
    expect(trusted.out).toContain('greet says hi to Ada');
    expect(existsSync(marker)).toBe(true);
  });

  it('a file that does not load blocks every tool, like a package', async () => {
    const m = machine(undefined);
    writeFileSync(join(m.home, 'broken.ts'), 'export default { name: "broken", setup( {\n');
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: ['~/broken.ts'] }));
    const r = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(r.code).not.toBe(0);
    expect(r.out).not.toContain('plain notes');
    expect(r.out + r.err).toContain('broken');
  });
});

describe.sequential('leaving out a policy extension an earlier layer lists', () => {
  it('a trusted project turning off the user\'s guard is warned about on every run', async () => {
    const m = machine(undefined);
    const guard = join(m.home, 'guard');
    mkdirSync(join(guard, 'src'), { recursive: true });
    writeFileSync(join(guard, 'package.json'), JSON.stringify({ name: 'guard', version: '1.0.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { hooks: ['tool_call:authorize'] } } }));
    writeFileSync(join(guard, 'src/index.ts'), "export default { name: 'guard', setup(api: any) { api.on('tool_call', () => undefined, { name: 'noop', phase: 'authorize' }); } };\n");
    writeFileSync(join(m.home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [guard] }));
    writeFileSync(join(m.dir, '.airlockrc.json'), JSON.stringify({ extensions: [{ path: guard, enabled: false }] }));
    for (let i = 0; i < 2; i++) {
      const r = await m.airlock(['--trust', 'call', 'read', '{"path":"notes.txt"}']);
      expect(r.code).toBe(0);
      expect(r.err).toMatch(/leave out a guard[^]*policy handlers/);
    }
  });
});

describe.sequential('leaving out a name that is not there', () => {
  it('"-@airlock/path-polcy" leaves path-policy in place and says which name was meant', async () => {
    const m = machine({ extensions: ['-@airlock/path-polcy'], permissions: DENY_SECRET });
    const r = await m.airlock(['call', 'read', '{"path":"secret.txt"}']);
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('TOP-SECRET-CONTENT');
    expect(r.err).toContain('leaves out nothing');
    expect(r.err).toContain('Did you mean "@airlock/path-policy"?');
  });
});

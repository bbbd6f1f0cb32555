import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, sandbox, type Run } from './harness.js';

const DIST = join(ROOT, 'packages/cli/dist');

/**
 * Runs the real binary with a module hook that notes every module Node loads, and returns the
 * source files (from the source maps) of the bundle's chunks it loaded: what the command compiled.
 */
async function loadedSources(s: ReturnType<typeof sandbox>, args: string[]): Promise<Run & { sources: string[]; files: string[] }> {
  const log = s.write('loaded.log', '');
  const hooks = s.write('hooks.mjs', `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`);
  const register = s.write('register.mjs', `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const run = await new Promise<Run>((done, fail) => {
    const child = spawn(process.execPath, ['--import', register, BIN, ...args], { cwd: s.project, env: { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url));
  const chunks = files.filter((file) => file.startsWith(DIST));
  expect(chunks, 'the bundle ran').toContain(join(DIST, 'airlock.mjs'));
  const sources = chunks.flatMap((file) => {
    // The bundler's own runtime helpers come from no source file, so they have no map.
    if (!existsSync(`${file}.map`)) return [];
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((source) => resolve(dirname(file), source));
  });
  return { ...run, sources, files };
}

const HEAVY = {
  host: '/packages/host/',
  agent: '/packages/agent/',
  kernel: '/packages/kernel/dist/kernel.js',
  typebox: '/typebox@',
  'the MCP SDK': '/@modelcontextprotocol+',
  zod: '/zod@',
  'the OpenAI SDK': '/openai@',
  'the Anthropic SDK': '/@anthropic-ai+',
};

/** A file of an extension package's code (the bundle's entry inlines their package.json files, for their versions). */
function extensionCode(file: string): boolean {
  return file.startsWith(join(ROOT, 'extensions') + sep) && !file.endsWith(`${sep}package.json`);
}

function heavyIn(sources: readonly string[], names: readonly (keyof typeof HEAVY)[]): string[] {
  return names.filter((name) => sources.some((source) => source.includes(HEAVY[name])));
}

describe('CLI start-up: each command loads only the code it needs', () => {
  it('--version, a command\'s --help and `help <built-in command>` load neither the host nor the kernel, and read no settings', async () => {
    const s = sandbox();
    // Settings no one could read: a command that opened a session would fail or warn.
    s.write('project/.airlockrc.json', '{ not json');
    for (const args of [['--version'], ['call', '--help'], ['tools', '--help'], ['help', 'call'], ['mcp', '--help']]) {
      const r = await loadedSources(s, args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.stdout.length, args.join(' ')).toBeGreaterThan(0);
      expect(heavyIn(r.sources, Object.keys(HEAVY) as (keyof typeof HEAVY)[]), args.join(' ')).toEqual([]);
    }
  });

  it('a tool call loads the host, but not the agent, the provider SDKs, MCP or zod', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'first line\n');
    const r = await loadedSources(s, ['call', 'read', '{"path":"notes.txt"}']);
    expect(r.stdout).toBe('first line\n');
    expect(r.code).toBe(0);
    expect(heavyIn(r.sources, ['host', 'kernel'])).toEqual(['host', 'kernel']);
    expect(heavyIn(r.sources, ['agent', 'the MCP SDK', 'zod', 'the OpenAI SDK', 'the Anthropic SDK'])).toEqual([]);
  });

  it("--help lists the commands extensions declare from their manifests, loading no extension's code, and with unreadable settings says why they are missing", async () => {
    const s = sandbox();
    const help = await loadedSources(s, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/\bcall\b/);
    // Commander wraps the lines: compare the words.
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/ audit check and read the audit log[^(]*\(from @airlock\/audit-log\)/);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/ policy explain and test[^(]*\(from @airlock\/path-policy\)/);
    expect([...help.sources, ...help.files].filter(extensionCode)).toEqual([]);
    s.write('project/.airlockrc.json', '{ not json');
    const broken = await s.airlock(['--help']);
    expect(broken.code).toBe(0);
    expect(broken.stdout).toMatch(/\bcall\b/);
    expect(broken.stderr).toMatch(/extension commands are not listed: .*\.airlockrc\.json/s);
  });

  it("a declared command's own help loads its command module, compiled into the bundle, and none of its extension", async () => {
    const s = sandbox();
    const r = await loadedSources(s, ['audit', 'verify', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--no-head');
    const extensionSources = r.sources.filter(extensionCode);
    expect(extensionSources.some((file) => file.endsWith('/audit-log/dist/command.js'))).toBe(true);
    expect(extensionSources.filter((file) => /\/audit-log\/dist\/(index|logger|writer)\.js$/.test(file))).toEqual([]);
    // Nothing of an extension came from its own files: the bundle carries the command modules of the default set.
    expect(r.files.filter(extensionCode)).toEqual([]);
  });

  it("through the real binary, a user's extension command is listed without its module or setup running; its help runs the module only; running it runs both", async () => {
    const s = sandbox();
    const markers = join(s.base, 'markers');
    const ext = join(s.home, 'ext', 'notes');
    s.write('home/ext/notes/package.json', { name: 'acme-notes', version: '1.0.0', type: 'module', airlock: { extension: './index.mjs', kernel: '^1.0.0', commands: [{ name: 'notes', summary: 'read the notes', module: './notes.mjs' }] } });
    s.write('home/ext/notes/index.mjs', `import { mkdirSync, writeFileSync } from 'node:fs';\nexport default { name: 'notes', setup() { mkdirSync(${JSON.stringify(markers)}, { recursive: true }); writeFileSync(${JSON.stringify(join(markers, 'setup'))}, ''); return { count: 3 }; } };\n`);
    s.write(
      'home/ext/notes/notes.mjs',
      `import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync(${JSON.stringify(markers)}, { recursive: true });\nwriteFileSync(${JSON.stringify(join(markers, 'module'))}, '');\nexport default { arguments: [{ name: 'topic', description: 'which notes' }], run({ args, stdout, extension }) { stdout.write(args[0] + ': ' + extension.fromSetup.count + ' notes\\n'); return 0; } };\n`,
    );
    s.write('home/.config/airlock/settings.json', { extensions: [ext] });
    const ran = () => (existsSync(markers) ? readdirSync(markers).sort() : []);

    const help = await s.airlock(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('notes read the notes (from acme-notes)');
    expect(ran()).toEqual([]);
    const own = await s.airlock(['notes', '--help']);
    expect(own.stdout).toContain('Usage: airlock notes [options] [topic]');
    expect(ran()).toEqual(['module']);
    const result = await s.airlock(['notes', 'today']);
    expect(result).toMatchObject({ code: 0, stdout: 'today: 3 notes\n' });
    expect(ran()).toEqual(['module', 'setup']);
  });

  it('every chunk the bundle imports exists, is ASCII (Node decodes it on its fast path) and has its source map', () => {
    const seen = new Set<string>();
    const queue = [join(DIST, 'airlock.mjs')];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      expect(existsSync(file), file).toBe(true);
      const text = readFileSync(file, 'utf8');
      expect(/[^\x00-\x7f]/.exec(text)?.[0], file).toBeUndefined();
      if (!file.includes('rolldown-runtime')) expect(existsSync(`${file}.map`), `${file}.map`).toBe(true);
      for (const m of text.matchAll(/(?:from|import\()\s*["'](\.{1,2}\/[^"']+\.mjs)["']/g)) queue.push(resolve(dirname(file), m[1]!));
    }
    // The split is real: the entry imports chunks, statically and per command.
    expect(seen.size).toBeGreaterThan(10);
  });
});

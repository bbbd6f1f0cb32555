import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, sandbox, type Run } from './harness.js';

const DIST = join(ROOT, 'packages/cli/dist');

/**
 * Runs the real binary with a module hook that notes every module Node loads, and returns the
 * source files (from the source maps) of the bundle's chunks it loaded: what the command compiled.
 */
async function loadedSources(s: ReturnType<typeof sandbox>, args: string[]): Promise<Run & { sources: string[] }> {
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
  const chunks = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
    .filter((file) => file.startsWith(DIST));
  expect(chunks, 'the bundle ran').toContain(join(DIST, 'airlock.mjs'));
  const sources = chunks.flatMap((file) => {
    // The bundler's own runtime helpers come from no source file, so they have no map.
    if (!existsSync(`${file}.map`)) return [];
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((source) => resolve(dirname(file), source));
  });
  return { ...run, sources };
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

  it('--help still lists the commands extensions bring (it opens the host for them), and with unreadable settings says why they are missing', async () => {
    const s = sandbox();
    const help = await s.airlock(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/\bcall\b/);
    // Commander wraps the lines: compare the words.
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/ audit check and read the audit log[^(]*\(from extension audit-log\)/);
    s.write('project/.airlockrc.json', '{ not json');
    const broken = await s.airlock(['--help']);
    expect(broken.code).toBe(0);
    expect(broken.stdout).toMatch(/\bcall\b/);
    expect(broken.stderr).toMatch(/extension commands are not listed: .*\.airlockrc\.json/s);
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

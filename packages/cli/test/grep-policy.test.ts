import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHost, type Host } from '@airlock/host';
import { createGrepTool, findRipgrep } from '@airlock/tool-grep';

/**
 * Issue 9: grep over a folder read `.env` and `certs/server.pem` because only the folder was
 * judged. Here the real host loads the default set (path-policy included) and grep runs through
 * the whole pipeline with each engine: no secret's line may come back, ordinary matches must,
 * and the notice says what was skipped and why.
 */

const SECRETS = ['env-value-123', 'local-value-321', 'pem-value-456', 'rsa-value-789', 'outside-key-000', 'ignored-env-555'];

let base: string;
let proj: string;
let host: Host;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-grep-policy-')));
  proj = join(base, 'proj');
  const home = join(base, 'home');
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  put(join(proj, 'README.md'), 'the word SECRET appears in the docs\n');
  put(join(proj, 'src/app.ts'), "export const SECRET_NAME = 'TOKEN';\n");
  put(join(proj, '.env.example'), 'SECRET_TOKEN=\n');
  put(join(proj, '.env'), 'SECRET_TOKEN=env-value-123\n');
  put(join(proj, 'sub/.env.local'), 'SECRET_TOKEN=local-value-321\n');
  put(join(proj, 'certs/server.pem'), 'SECRET pem-value-456\n');
  put(join(proj, 'id_rsa'), 'SECRET rsa-value-789\n');
  // A .gitignore that un-ignores a secret must not bring it back into the search.
  put(join(proj, 'deep/.gitignore'), '!.env\n');
  put(join(proj, 'deep/.env'), 'SECRET_TOKEN=ignored-env-555\n');
  put(join(base, 'outside/server.key'), 'SECRET outside-key-000\n');
  symlinkSync(join(base, 'outside/server.key'), join(proj, 'notes.txt'));
  mkdirSync(join(home, '.config'), { recursive: true });
  host = await openHost({ cwd: proj, homeDir: home, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') }, interactive: false });
  expect(host.blocked).toBeUndefined();
});

afterAll(async () => {
  await host?.close();
  rmSync(base, { recursive: true, force: true });
});

async function grep(engine: 'node' | 'rg', args: Record<string, unknown>) {
  // The engine under test replaces the default grep, so the call still goes through path-policy as "grep".
  const tool = { ...createGrepTool({ engine }), override: true };
  const off = host.kernel.registry.register(tool as never, { source: 'sdk' });
  try {
    const message = await host.kernel.executeToolCall({ id: `g-${engine}`, name: 'grep', arguments: args });
    const text = message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return { message, text, details: message.details as { skipped?: { count: number; denied: number; needsApproval: number; paths: { path: string; effect: string; rule?: string }[] } } };
  } finally {
    off();
  }
}

const engines = (['node', 'rg'] as const).filter((e) => e === 'node' || findRipgrep() !== undefined);

describe.each(engines)('grep with the %s engine, through the host with the default set', (engine) => {
  it('never prints a line of a secret file, and still finds the ordinary matches', async () => {
    const { message, text } = await grep(engine, { pattern: 'SECRET', path: '.' });
    expect(message.outcome).toBe('ok');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain('README.md:1: the word SECRET appears in the docs');
    expect(text).toContain("src/app.ts:1: export const SECRET_NAME = 'TOKEN';");
    // .env.example is a template, not a secret: it is searched.
    expect(text).toContain('.env.example:1: SECRET_TOKEN=');
  });

  it('says how many files were skipped, why, and how to read one anyway; details list them', async () => {
    const { text, details } = await grep(engine, { pattern: 'SECRET', path: '.' });
    expect(text).toMatch(/\[5 files skipped by the read rules, not searched: 5 denied \(default:secret-read: /);
    expect(text).toContain('use the read tool on its path');
    expect(details.skipped).toMatchObject({ count: 5, denied: 5, needsApproval: 0 });
    expect(details.skipped!.paths.map((p) => p.path)).toEqual(['.env', 'certs/server.pem', 'deep/.env', 'id_rsa', 'sub/.env.local']);
  });

  it('a glob or a subfolder does not open a way around the rules', async () => {
    const byGlob = await grep(engine, { pattern: 'value', path: '.', glob: '**/.env*' });
    for (const secret of SECRETS) expect(byGlob.text).not.toContain(secret);
    const byFolder = await grep(engine, { pattern: 'SECRET', path: 'certs' });
    expect(byFolder.text).not.toContain('pem-value-456');
    expect(byFolder.text).toContain('No matches found.');
    expect(byFolder.text).toContain('1 file skipped');
  });

  it('a file named directly is judged as the call: a secret is denied, an ordinary one is searched', async () => {
    const denied = await grep(engine, { pattern: 'SECRET', path: '.env' });
    expect(denied.message.outcome).toBe('denied');
    expect(denied.text).not.toContain('env-value-123');
    const ok = await grep(engine, { pattern: 'SECRET', path: 'README.md' });
    expect(ok.text).toContain('README.md:1: the word SECRET');
  });

  it('a symlink in the tree that points at a secret outside it is never searched, even when named', async () => {
    const named = await grep(engine, { pattern: 'SECRET', path: 'notes.txt' });
    expect(named.message.outcome).toBe('denied');
    expect(named.text).not.toContain('outside-key-000');
  });
});

describe('find and ls through the host: names are shown, contents never', () => {
  it('list a secret file by name (the read rules guard contents), and print none of its content', async () => {
    const found = await host.kernel.executeToolCall({ id: 'f', name: 'find', arguments: { pattern: '*', path: '.' } });
    const listed = await host.kernel.executeToolCall({ id: 'l', name: 'ls', arguments: { path: '.' } });
    for (const message of [found, listed]) {
      const text = message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      expect(message.outcome).toBe('ok');
      expect(text).toContain('.env');
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
  });
});

describe.each(engines)('grep with the %s engine and rules from a settings file', (engine) => {
  it('skips files a deny rule or an ask rule covers, naming each rule in the notice', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-grep-rules-')));
    try {
      const root = join(dir, 'proj');
      mkdirSync(join(root, 'private'), { recursive: true });
      writeFileSync(join(root, 'private/plan.md'), 'hit private-plan-111\n');
      writeFileSync(join(root, 'notes.draft'), 'hit draft-222\n');
      writeFileSync(join(root, 'ok.md'), 'hit ok\n');
      const settings = join(dir, 'airlock.json');
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ['fs.read(/private/**)'], ask: ['fs.read(**/*.draft)'] } }));
      const home = join(dir, 'home');
      mkdirSync(home);
      const h = await openHost({ cwd: root, settingsFile: settings, homeDir: home, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, interactive: false });
      try {
        expect(h.blocked).toBeUndefined();
        h.kernel.registry.register({ ...createGrepTool({ engine }), override: true } as never, { source: 'sdk' });
        const message = await h.kernel.executeToolCall({ id: 'r', name: 'grep', arguments: { pattern: 'hit' } });
        const text = message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
        expect(text).toContain('ok.md:1: hit ok');
        expect(text).not.toContain('private-plan-111');
        expect(text).not.toContain('draft-222');
        expect(text).toContain('2 files skipped by the read rules, not searched: 1 denied (fs.read(/private/**): private/plan.md), 1 needs approval (fs.read(**/*.draft): notes.draft)');
      } finally {
        await h.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHost, type Host } from '../src/index.js';
import { removeTempDirs, tempDir, writePackage } from './extensions/fixtures.js';

/**
 * `host.redact(text)`: the redactors extensions register (`api.registerRedactor`), for what a
 * program writes down beside the tool pipeline (session transcripts). The real redact-secrets
 * registers the same redactor it redacts results with; a failing redactor, or a policy extension
 * that failed to load, makes host.redact throw, so nothing is written in clear.
 */

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

function world() {
  const root = tempDir('airlock-redact-text-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const open = async (extensions: string[]) => {
    writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: extensions.map((path) => ({ path })) }));
    const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state') }, homeDir: home });
    hosts.push(host);
    return host;
  };
  const ext = (name: string, body: string) => writePackage(join(root, 'exts', name), { name, provides: { hooks: [] }, files: { 'src/index.ts': `export default { name: ${JSON.stringify(name)}, ${body} };\n` } });
  return { root, project, open, ext };
}

describe('host.redact', () => {
  it('applies redact-secrets (loaded by default): the token a result would show as a placeholder is the same placeholder in text', async () => {
    const w = world();
    writeFileSync(join(w.project, 'notes.txt'), `token: ${TOKEN}\n`);
    const host = await w.open([]);
    const said = host.redact(`my token is ${TOKEN}`);
    expect(said).not.toContain(TOKEN);
    expect(said).toMatch(/^my token is \[REDACTED:github-token#\d+\]$/);
    const read = await host.execute({ id: 'c1', name: 'read', arguments: { path: 'notes.txt' } });
    const placeholder = said.slice('my token is '.length);
    expect(read.content).toEqual([{ type: 'text', text: `token: ${placeholder}\n` }]);
    expect(host.redact('nothing secret here')).toBe('nothing secret here');
  });

  it('a redactor that throws makes host.redact throw, naming the extension', async () => {
    const w = world();
    const host = await w.open([w.ext('flaky', `setup(api) { api.registerRedactor((t) => { if (t.includes('boom')) throw new Error('scanner crashed'); return t; }, { name: 'text' }); }`)]);
    expect(host.blocked).toBeUndefined();
    expect(host.redact('fine')).toBe('fine');
    // Named, but its own message (which may quote the text) is not repeated.
    expect(() => host.redact('boom')).toThrow('the redactor "flaky/text" failed (its own error is not shown: it may quote the text)');
  });

  it('an extension that registered a redactor and then failed blocks the host, and host.redact refuses', async () => {
    const w = world();
    const host = await w.open([w.ext('scrubber', `setup(api) { api.registerRedactor((t) => t.replaceAll('x', '_')); throw new Error('pattern file missing'); }`)]);
    expect(host.blocked?.extension).toBe('scrubber');
    expect(() => host.redact('text')).toThrow('the policy extension "scrubber" failed to load');
    expect(() => host.redact('text')).toThrow('nothing is written in clear');
  });
});

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResultMessage } from '@airlock/contract';
import { openHost, type Host } from '../src/index.js';
import { removeTempDirs, tempDir } from './extensions/fixtures.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * File names as people have them, through a real host with the default tools and path-policy:
 * a macOS screenshot name (U+202F before PM) is read as given and as typed with a plain space,
 * write does not make a second file beside it, a "did you mean" shows the invisible characters,
 * and a variant never reads past a deny rule.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

const SHOT = 'Screenshot 2026-12-01 at 10.02.03\u202FPM.txt';
const PLAIN = SHOT.replace('\u202F', ' ');

async function open(settings: Record<string, unknown> = {}): Promise<{ host: Host; project: string }> {
  const root = tempDir('airlock-names-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify(settings));
  const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' }, homeDir: home });
  hosts.push(host);
  return { host, project };
}

const text = (m: ToolResultMessage) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
let n = 0;
const call = (host: Host, name: string, args: Record<string, unknown>) => host.execute({ id: `c${n++}`, name, arguments: args });

describe('file names as people have them', { timeout: scaledMs(60_000) }, () => {
  it('a screenshot name with U+202F is read exactly as given, and as typed with a plain or no-break space', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, SHOT), 'the screenshot notes\n');
    for (const typed of [SHOT, PLAIN, SHOT.replace('\u202F', '\u00A0')]) {
      const m = await call(host, 'read', { path: typed });
      expect(m.outcome, text(m)).toBe('ok');
      expect(text(m)).toContain('the screenshot notes');
    }
    // grep, ls-free tools resolve the same way.
    const g = await call(host, 'grep', { pattern: 'notes', path: PLAIN });
    expect(g.outcome, text(g)).toBe('ok');
    expect(text(g)).toContain('the screenshot notes');
  });

  it('NFD names and curly apostrophes are found from NFC and straight spellings', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'cafe\u0301.txt'), 'nfd file\n');
    writeFileSync(join(project, 'it\u2019s.txt'), 'curly file\n');
    expect(text(await call(host, 'read', { path: 'caf\u00e9.txt' }))).toContain('nfd file');
    expect(text(await call(host, 'read', { path: "it's.txt" }))).toContain('curly file');
  });

  it('write with a plain space replaces the U+202F file instead of creating a second one, and says so', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, SHOT), 'old\n');
    await call(host, 'read', { path: SHOT });
    const m = await call(host, 'write', { path: PLAIN, content: 'new\n' });
    expect(m.outcome, text(m)).toBe('ok');
    expect(readdirSync(project)).toEqual([SHOT]);
    expect(readFileSync(join(project, SHOT), 'utf8')).toBe('new\n');
    expect(text(m)).toContain('\\u202F');
    expect(text(m)).toContain('not a second file');
  });

  it('with two variants, write refuses and read says "did you mean" with the invisible characters escaped', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'twin\u202Fa.txt'), '1');
    writeFileSync(join(project, 'twin\u00A0a.txt'), '2');
    const w = await call(host, 'write', { path: 'twin a.txt', content: 'x' });
    expect(w.isError).toBe(true);
    expect(text(w)).toContain('twin\\u202Fa.txt');
    expect(text(w)).toContain('twin\\u00A0a.txt');
    expect(readdirSync(project).sort()).toEqual(['twin\u00A0a.txt', 'twin\u202Fa.txt']);
    const r = await call(host, 'read', { path: 'twin a.txt' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Did you mean/);
    expect(text(r)).toContain('twin\\u202Fa.txt');
  });

  it('a variant is judged on the file it opens: a deny rule for the real name stops the plain-space spelling', async () => {
    const { host, project } = await open({ permissions: { deny: ['fs.read(**/secret\u202Fplan.txt)'] } });
    writeFileSync(join(project, 'secret\u202Fplan.txt'), 'TOP-SECRET-PLAN\n');
    for (const typed of ['secret plan.txt', 'secret\u00A0plan.txt', 'secret\u202Fplan.txt']) {
      for (const tool of ['read', 'grep']) {
        const m = await call(host, tool, tool === 'read' ? { path: typed } : { pattern: 'SECRET', path: typed });
        expect(m.outcome, `${tool} ${typed}: ${text(m)}`).toBe('denied');
        expect(text(m)).not.toContain('TOP-SECRET-PLAN');
      }
    }
  });

  it('a deny rule written with a plain space still covers the file whose name has U+202F', async () => {
    const { host, project } = await open({ permissions: { deny: ['fs.read(**/secret plan.txt)'] } });
    writeFileSync(join(project, 'secret\u202Fplan.txt'), 'TOP-SECRET-PLAN\n');
    for (const typed of ['secret plan.txt', 'secret\u202Fplan.txt']) {
      const m = await call(host, 'read', { path: typed });
      expect(m.outcome, `${typed}: ${text(m)}`).toBe('denied');
      expect(text(m)).not.toContain('TOP-SECRET-PLAN');
    }
  });
});

describe('a workspace whose own folder name has a no-break space', { timeout: scaledMs(60_000) }, () => {
  it('its files are still inside the workspace: read works with no approver', async () => {
    const root = tempDir('airlock-names-root-');
    const home = join(root, 'home');
    const project = join(root, 'My\u00A0Project');
    mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
    mkdirSync(project);
    writeFileSync(join(project, 'notes\u202Fa.txt'), 'inside\n');
    const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' }, homeDir: home });
    hosts.push(host);
    for (const typed of ['notes\u202Fa.txt', 'notes a.txt']) {
      const m = await call(host, 'read', { path: typed });
      expect(m.outcome, text(m)).toBe('ok');
      expect(text(m)).toContain('inside');
    }
  });
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { airlockStateHome, projectKey, projectRoot, projectStateDir, stateHome } from '../../src/util/index.js';

function makeTempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** One place computes where a project's state lives; audit logs and transcripts both use it. */
describe('project state folders', () => {
  it('finds the project from a subfolder or a link, and keys it by name and path hash', () => {
    const base = makeTempDir('airlock-project-state-');
    const shop = join(base, 'shop');
    mkdirSync(join(shop, '.git'), { recursive: true });
    mkdirSync(join(shop, 'src', 'deep'), { recursive: true });
    symlinkSync(shop, join(base, 'link'));
    const where = { env: {}, home: join(base, 'home') };
    const dir = projectStateDir('sessions', shop, where);
    expect(dir).toMatch(new RegExp(`^${join(base, 'home', '.local', 'state', 'airlock', 'sessions')}/shop-[0-9a-f]{8}$`));
    expect(projectStateDir('sessions', join(shop, 'src', 'deep'), where)).toBe(dir);
    expect(projectStateDir('sessions', join(base, 'link', 'src'), where)).toBe(dir);
    expect(projectRoot(join(shop, 'src'))).toBe(shop);
    // Same name elsewhere: another folder.
    const other = join(base, 'elsewhere', 'shop');
    mkdirSync(other, { recursive: true });
    expect(projectKey(other)).not.toBe(projectKey(shop));
    expect(projectKey(join(base, 'a b/ä'))).toMatch(/^_-[0-9a-f]{8}$/);
  });

  it('honours an absolute XDG_STATE_HOME and ignores a relative one', () => {
    expect(stateHome({ env: { XDG_STATE_HOME: '/var/st' }, home: '/h' })).toBe('/var/st');
    expect(stateHome({ env: { XDG_STATE_HOME: 'rel' }, home: '/h' })).toBe('/h/.local/state');
    expect(airlockStateHome({ env: {}, home: '/h' })).toBe('/h/.local/state/airlock');
  });
});

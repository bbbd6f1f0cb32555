import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTrustFile, findTrust, readTrustStore, setTrust } from '../../src/trust/index.js';
import { removeTempDirs, tempDir } from '../extensions/fixtures.js';

afterAll(removeTempDirs);

function setup() {
  const root = tempDir('airlock-trust-');
  const trustFile = join(root, 'config', 'airlock', 'trust.json');
  const projects = join(root, 'projects');
  mkdirSync(join(projects, 'app', 'sub'), { recursive: true });
  return { root, trustFile, projects };
}

describe('trust.json', () => {
  it('lives in $XDG_CONFIG_HOME/airlock, or ~/.config/airlock', () => {
    expect(defaultTrustFile({ XDG_CONFIG_HOME: '/x/cfg' }, '/home/me')).toBe('/x/cfg/airlock/trust.json');
    expect(defaultTrustFile({}, '/home/me')).toBe('/home/me/.config/airlock/trust.json');
    // A relative XDG_CONFIG_HOME is ignored (XDG spec).
    expect(defaultTrustFile({ XDG_CONFIG_HOME: 'rel' }, '/home/me')).toBe('/home/me/.config/airlock/trust.json');
  });

  it('is written with mode 0600, atomically, with {path, trusted, at} entries', async () => {
    const { trustFile, projects } = setup();
    const at = new Date('2025-01-02T03:04:05.000Z');
    const entry = await setTrust(join(projects, 'app'), true, { trustFile, now: at });
    expect(entry).toEqual({ path: join(projects, 'app'), trusted: true, at: at.toISOString() });
    expect(statSync(trustFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(trustFile, '..')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(trustFile, 'utf8'))).toEqual({ version: 1, entries: [entry] });
    // No temporary file left behind.
    expect(readdirSync(join(trustFile, '..'))).toEqual(['trust.json']);

    // A second decision for the same folder replaces the first.
    await setTrust(join(projects, 'app'), false, { trustFile });
    expect(readTrustStore(trustFile).entries.map((e) => e.trusted)).toEqual([false]);
  });

  it('is keyed by real path, so a symlink cannot borrow the trust of the folder it sits in', async () => {
    const { root, trustFile, projects } = setup();
    const evil = join(root, 'downloads', 'evil-repo');
    mkdirSync(evil, { recursive: true });
    symlinkSync(evil, join(projects, 'evil'), 'dir');
    await setTrust(projects, true, { trustFile });
    const { entries } = readTrustStore(trustFile);
    expect(findTrust(join(projects, 'app', 'sub'), entries)?.path).toBe(projects);
    // Lexically under the trusted folder, really elsewhere.
    expect(findTrust(join(projects, 'evil'), entries)).toBeUndefined();

    // Trusting through a symlink stores the real folder.
    symlinkSync(join(projects, 'app'), join(root, 'app-link'), 'dir');
    const stored = await setTrust(join(root, 'app-link'), true, { trustFile });
    expect(stored.path).toBe(join(projects, 'app'));
  });

  it('lets the nearest decision win: an untrusted subfolder of a trusted parent is untrusted', async () => {
    const { trustFile, projects } = setup();
    await setTrust(projects, true, { trustFile });
    await setTrust(join(projects, 'app'), false, { trustFile });
    const { entries } = readTrustStore(trustFile);
    expect(findTrust(join(projects, 'app', 'sub'), entries)?.trusted).toBe(false);
    expect(findTrust(projects, entries)?.trusted).toBe(true);
  });

  it('trusts nothing from a file others could have written, and refuses to rewrite it', async () => {
    const { trustFile, projects } = setup();
    await setTrust(projects, true, { trustFile });
    chmodSync(trustFile, 0o666);
    const store = readTrustStore(trustFile);
    expect(store.entries).toEqual([]);
    expect(store.diagnostics.map((d) => d.code)).toEqual(['AIRLOCK_TRUST_FILE_INSECURE']);
    expect(store.diagnostics[0]!.fix).toContain(`chmod 600 ${trustFile}`);
    await expect(setTrust(projects, true, { trustFile })).rejects.toThrow(/other users may write to it/);
  });

  it('trusts nothing from a file that does not parse', async () => {
    const { trustFile, projects } = setup();
    mkdirSync(join(trustFile, '..'), { recursive: true });
    for (const text of ['{ not json', JSON.stringify({ version: 2, entries: [] }), JSON.stringify({ version: 1, entries: [{ path: 'rel', trusted: true, at: 'x' }] })]) {
      writeFileSync(trustFile, text, { mode: 0o600 });
      const store = readTrustStore(trustFile);
      expect(store.entries).toEqual([]);
      expect(store.diagnostics.map((d) => d.code)).toEqual(['AIRLOCK_TRUST_FILE_INVALID']);
    }
    await expect(setTrust(projects, true, { trustFile })).rejects.toThrow(/cannot be read/);
  });

  it('refuses to trust a folder that does not exist', async () => {
    const { root, trustFile } = setup();
    await expect(setTrust(join(root, 'missing'), true, { trustFile })).rejects.toThrow(/Name an existing folder/);
  });
});

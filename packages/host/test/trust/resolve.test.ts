import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrustStore, resolveTrust, setTrust, trustModeFromLayers } from '../../src/trust/index.js';
import { removeTempDirs, tempDir } from '../extensions/fixtures.js';
import { around, HOSTILE_SAMPLES, rawHostile, spoofedLines, visibleForm } from '@airlock/kernel/testing';

afterAll(removeTempDirs);

function setup() {
  const root = tempDir('airlock-trust-');
  const trustFile = join(root, 'config', 'trust.json');
  const project = join(root, 'work', 'app');
  mkdirSync(project, { recursive: true });
  return { root, trustFile, project };
}

/** A confirm callback that records its questions. */
function asker(answer: boolean | Error) {
  const questions: string[] = [];
  return {
    questions,
    confirm: async (message: string) => {
      questions.push(message);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe('resolveTrust', () => {
  it('is untrusted without a TTY, and says how to trust', async () => {
    const { trustFile, project } = setup();
    const ask = asker(true);
    const d = await resolveTrust({ projectDir: project, interactive: false, confirm: ask.confirm, trustFile });
    expect(d).toMatchObject({ trusted: false, source: 'not-interactive', projectDir: project });
    expect(d.reason).toContain(`airlock trust ${project}`);
    expect(ask.questions).toEqual([]);
  });

  it('asks through confirm with a TTY, and remembers the answer', async () => {
    const { trustFile, project } = setup();
    const yes = asker(true);
    const d = await resolveTrust({ projectDir: project, interactive: true, confirm: yes.confirm, trustFile, extensions: ['./tools/x', '@acme/guard'] });
    expect(d).toMatchObject({ trusted: true, source: 'prompt' });
    expect(yes.questions).toHaveLength(1);
    expect(yes.questions[0]).toContain(project);
    expect(yes.questions[0]).toContain('./tools/x, @acme/guard');
    expect(readTrustStore(trustFile).entries).toMatchObject([{ path: project, trusted: true }]);

    // Next run: the stored answer applies, nobody is asked.
    const again = asker(false);
    const next = await resolveTrust({ projectDir: project, interactive: true, confirm: again.confirm, trustFile });
    expect(next).toMatchObject({ trusted: true, source: 'stored' });
    expect(again.questions).toEqual([]);
  });

  it('treats an interrupted question as "no", and remembers nothing', async () => {
    const { trustFile, project } = setup();
    const d = await resolveTrust({ projectDir: project, interactive: true, confirm: asker(new Error('Ctrl-C')).confirm, trustFile });
    expect(d).toMatchObject({ trusted: false, source: 'prompt' });
    expect(existsSync(trustFile)).toBe(false);
  });

  it('covers a project through a trusted parent folder', async () => {
    const { root, trustFile, project } = setup();
    await setTrust(join(root, 'work'), true, { trustFile });
    const d = await resolveTrust({ projectDir: project, interactive: false, trustFile });
    expect(d).toMatchObject({ trusted: true, source: 'stored', entry: { path: join(root, 'work') } });
    expect(d.reason).toContain('a parent folder');
  });

  it('lets --trust / --no-trust win over stored decisions, for this run only', async () => {
    const { trustFile, project } = setup();
    await setTrust(project, false, { trustFile });
    expect(await resolveTrust({ projectDir: project, flag: true, interactive: false, trustFile })).toMatchObject({ trusted: true, source: 'flag' });
    await setTrust(project, true, { trustFile });
    expect(await resolveTrust({ projectDir: project, flag: false, interactive: true, trustFile })).toMatchObject({ trusted: false, source: 'flag' });
    // Nothing was stored by the flags.
    expect(readTrustStore(trustFile).entries).toMatchObject([{ path: project, trusted: true }]);
  });

  it('follows trust.default "always" and "never" when nothing is stored', async () => {
    const { trustFile, project } = setup();
    const ask = asker(true);
    expect(await resolveTrust({ projectDir: project, mode: 'always', interactive: false, trustFile })).toMatchObject({ trusted: true, source: 'setting' });
    expect(await resolveTrust({ projectDir: project, mode: 'never', interactive: true, confirm: ask.confirm, trustFile })).toMatchObject({
      trusted: false,
      source: 'setting',
    });
    expect(ask.questions).toEqual([]);
  });
});

describe('trustModeFromLayers', () => {
  it('does not let a project set trust.default (a project must not trust itself)', () => {
    const { mode, diagnostics } = trustModeFromLayers([
      { name: 'user', file: '/home/me/.config/airlock/settings.json', values: { trust: { default: 'never' } } },
      { name: 'project', file: '/p/.airlockrc.json', values: { trust: { default: 'always' } } },
    ]);
    expect(mode).toBe('never');
    expect(diagnostics.map((d) => [d.code, d.file])).toEqual([['AIRLOCK_TRUST_DEFAULT_IGNORED', '/p/.airlockrc.json']]);
  });

  it('takes the highest of defaults, user and CLI, and ignores an invalid value', () => {
    expect(trustModeFromLayers([]).mode).toBe('ask');
    expect(
      trustModeFromLayers([
        { name: 'cli', values: { trust: { default: 'always' } } },
        { name: 'user', values: { trust: { default: 'never' } } },
      ]).mode,
    ).toBe('always');
    const bad = trustModeFromLayers([{ name: 'user', file: '/u.json', values: { trust: { default: 'yes' } } }]);
    expect(bad.mode).toBe('ask');
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['AIRLOCK_TRUST_DEFAULT_INVALID']);
  });

  it("reads the settings code's own layer records", async () => {
    const { loadSettings } = await import('../../src/settings/index.js');
    type Layers = Awaited<ReturnType<typeof loadSettings>>['layers'];
    const layers: Layers = [{ name: 'user', file: '/u.json', values: { trust: { default: 'always' } } }];
    expect(trustModeFromLayers(layers).mode).toBe('always');
  });
});

describe('the trust question shows the folder and the extensions it names as they are', () => {
  it('every hostile character in the folder name or a settings entry is a visible escape, and the question stays three lines', async () => {
    const { root, trustFile } = setup();
    for (const [i, sample] of HOSTILE_SAMPLES.entries()) {
      if (sample.text === '\u0000') continue; // a folder name cannot hold NUL
      const project = join(root, `p${i}`, around(sample));
      mkdirSync(project, { recursive: true });
      const ask = asker(false);
      await resolveTrust({ projectDir: project, interactive: true, confirm: ask.confirm, trustFile, extensions: [`./${around(sample)}`] });
      const [question] = ask.questions;
      expect(rawHostile(question!, { lines: true }), sample.name).toEqual([]);
      expect(spoofedLines(question!), sample.name).toEqual([]);
      expect(question!.split('\n'), sample.name).toHaveLength(3);
      expect(question, sample.name).toContain(`${visibleForm(around(sample))}?`);
      expect(question, sample.name).toContain(`extensions: ./${visibleForm(around(sample))}.`);
    }
  });
});

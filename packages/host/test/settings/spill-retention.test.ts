import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError, toKernelOptions } from '../../src/settings/index.js';
import { isolated, tree } from './fixtures/temp-tree.js';

const USER = '.config/airlock/settings.json';

describe('limits.spillRetentionDays and limits.spillTotalBudget: the spill retention policy', () => {
  it('the user sets them; they reach the kernel as milliseconds and bytes', async () => {
    const root = await tree({ [USER]: { limits: { spillRetentionDays: 0.5, spillTotalBudget: 1_000_000 } }, 'repo/x.txt': '' });
    const loaded = await loadSettings({ ...isolated(root), cwd: join(root, 'repo') });
    expect(toKernelOptions(loaded.settings).spill).toMatchObject({ retentionMs: 43_200_000, totalBudgetBytes: 1_000_000 });
  });

  it('an untrusted project cannot change them (it could wipe or flood the user\'s spills): ignored, with a warning', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { limits: { spillRetentionDays: 0.0001, spillTotalBudget: 1 } } });
    const loaded = await loadSettings({ ...isolated(root), cwd: join(root, 'repo') });
    expect(toKernelOptions(loaded.settings).spill).toMatchObject({ retentionMs: 7 * 86_400_000, totalBudgetBytes: 1024 ** 3 });
    expect(loaded.diagnostics.map((d) => d.message).join('\n')).toMatch(/Ignored limits\.spillRetentionDays, limits\.spillTotalBudget in /);
  });

  it('a bad value stops loading with the key, the file and what is expected', async () => {
    for (const limits of [{ spillRetentionDays: 0 }, { spillRetentionDays: '7d' }, { spillTotalBudget: 0.5 }]) {
      const root = await tree({ [USER]: { limits }, 'repo/x.txt': '' });
      const error = await loadSettings({ ...isolated(root), cwd: join(root, 'repo') }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SettingsError);
      expect((error as Error).message).toContain(`limits.${Object.keys(limits)[0]}`);
      expect((error as Error).message).toContain(join(root, USER));
    }
  });
});

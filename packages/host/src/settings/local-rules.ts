/**
 * The project's local rules: `.airlock/settings.local.json`, written when a person answers an
 * approval prompt with "always allow" for this project. It sits next to the shared project
 * settings but is not shared (a `.gitignore` beside it keeps it out of git), and it may hold
 * permission rules only: a file a prompt writes must not be able to load code or change trust.
 *
 * `addPermissionRule` is also how the same answer lands in the user's settings file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { invalidSettings } from './errors.js';
import type { PermissionEffect, PermissionRule, SettingsLayer } from './schema.js';
import { validateSettings } from './validate.js';

/** Where a project's local rules live, for the folder of its settings (or the cwd when it has none). */
export function localRulesFile(projectDir: string): string {
  return join(projectDir, '.airlock', 'settings.local.json');
}

/**
 * Validate a local rules file: settings like any layer, but nothing except `permissions`.
 *
 * @example validateLocalRules({ permissions: { allow: ['bash(npm test)'] } }, file) // ok
 */
export function validateLocalRules(values: unknown, file: string): SettingsLayer {
  const layer = validateSettings(values, { layer: 'local', file });
  const others = Object.keys(layer).filter((key) => key !== 'permissions');
  if (others.length > 0) {
    throw invalidSettings(
      { layer: 'local', file },
      others.map((key) => ({
        path: key,
        message: `only "permissions" may be set in ${file}; move "${key}" to the project's settings file`,
      })),
    );
  }
  return layer;
}

/** Where `addPermissionRule` wrote, and whether the rule was new. */
export interface AddedRule {
  file: string;
  added: boolean;
}

/**
 * Add one rule to `permissions[effect]` of a settings file, keeping everything else in it. The
 * file is validated before and after (a broken file is reported, never overwritten), written to
 * a temporary file and renamed into place, so a crash leaves the old or the new file, never half
 * of one. A rule already present is not added twice.
 *
 * @example await addPermissionRule(localRulesFile(projectDir), 'allow', 'bash(npm test)', 'local')
 */
export async function addPermissionRule(
  file: string,
  effect: PermissionEffect,
  rule: PermissionRule,
  layer: 'local' | 'user',
): Promise<AddedRule> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  let values: Record<string, unknown> = {};
  if (text !== undefined && text.trim() !== '') {
    try {
      values = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw invalidSettings({ layer, file }, [{ path: '', message: `not valid JSON (${(error as Error).message}); fix or remove the file, then answer again` }]);
    }
  }
  // Validate what is there before touching it: a rule must not be added to a file the host would reject.
  const current = layer === 'local' ? validateLocalRules(values, file) : validateSettings(values, { layer, file });
  const list = current.permissions?.[effect] ?? [];
  if (list.some((existing) => sameRule(existing, rule))) return { file, added: false };

  const permissions = { ...(values.permissions as Record<string, unknown> | undefined), [effect]: [...list, rule] };
  const next = { ...values, permissions };
  if (layer === 'local') validateLocalRules(next, file);
  else validateSettings(next, { layer, file });

  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  if (layer === 'local') await ignoreInGit(dirname(file));
  const temp = join(dirname(file), `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return { file, added: true };
}

/** Keep local rules out of commits: one person's "always allow" is not the team's policy. */
async function ignoreInGit(dir: string): Promise<void> {
  await writeFile(join(dir, '.gitignore'), '# Written by Airlock: local rules are not shared.\nsettings.local.json\n', { flag: 'wx' }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
}

function sameRule(a: PermissionRule, b: PermissionRule): boolean {
  return typeof a === 'string' || typeof b === 'string' ? a === b : JSON.stringify(a) === JSON.stringify(b);
}

import { readFile, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { findProjectSettings, type SearchBoundaries } from '@airlock/host';

/** The project settings file `extensions add` writes to, and what it holds now. */
export interface EditableSettings {
  file: string;
  /** The project folder: the settings file's folder, or the current one when there is none yet. */
  dir: string;
  /** The whole file's JSON, to write back. */
  document: Record<string, unknown>;
  /** No settings file yet: `.airlockrc.json` is made. */
  created: boolean;
}

/**
 * Find the project settings file and read it as JSON, before anything is installed. A settings
 * file that is code (airlock.config.ts) or YAML cannot be edited without losing what it says, so
 * it is refused with the entry to add by hand.
 *
 * @example const s = await editableSettings('/repo', boundaries); addExtensionEntry(s, '@acme/guard'); await saveSettings(s);
 */
export async function editableSettings(cwd: string, boundaries: SearchBoundaries, name: string): Promise<EditableSettings> {
  const found = await findProjectSettings(cwd, boundaries);
  if (found === undefined) return { file: join(cwd, '.airlockrc.json'), dir: cwd, document: {}, created: true };
  const by = `add "${name}" to its "extensions" list yourself`;
  if (found.kind === 'code') throw Object.assign(new Error(`The project settings ${found.file} are code, which airlock does not rewrite.`), { hint: `Nothing was installed. Install the package, then ${by}.` });
  const ext = extname(found.file);
  let document: unknown;
  try {
    document = JSON.parse(await readFile(found.file, 'utf8'));
  } catch {
    document = undefined;
  }
  const json = ext === '.json' || (basename(found.file) === '.airlockrc' && document !== undefined);
  if (!json || typeof document !== 'object' || document === null || Array.isArray(document)) {
    // An empty .airlockrc.json counts as settings too: it is filled in.
    if (json && (await readFile(found.file, 'utf8')).trim() === '') return { file: found.file, dir: found.dir, document: {}, created: false };
    throw Object.assign(new Error(`The project settings ${found.file} are not a JSON object, which is all airlock rewrites.`), { hint: `Nothing was installed. Install the package, then ${by}.` });
  }
  return { file: found.file, dir: found.dir, document: document as Record<string, unknown>, created: false };
}

/**
 * Add a package name to the settings' `extensions` list, unless an entry for it is there (as a
 * string or `{ "name": … }`). Returns false when it was already listed. A `-name` entry (the
 * package left out) is replaced: adding it means wanting it.
 */
export function addExtensionEntry(s: EditableSettings, name: string): boolean {
  const settings = s.document as { extensions?: unknown };
  const list = Array.isArray(settings.extensions) ? settings.extensions : [];
  const named = (e: unknown) => e === name || (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === name);
  if (list.some(named)) return false;
  settings.extensions = [...list.filter((e) => e !== `-${name}`), name];
  return true;
}

export async function saveSettings(s: EditableSettings): Promise<void> {
  await writeFile(s.file, `${JSON.stringify(s.document, null, 2)}\n`);
}

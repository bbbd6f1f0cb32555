/**
 * A settings file that holds an API key should be readable by its owner only: a key other users
 * of the machine can read is a key they can use. Reading it is not refused (the user wrote it;
 * stopping the run would not take the key back), but every run says so until it is fixed.
 */
import { stat } from 'node:fs/promises';
import type { SettingsLayer } from './schema.js';

/**
 * Undefined when `file` names no `providers.*.apiKey`, or only its owner may read it; otherwise
 * a warning naming the keys and the command that fixes it. POSIX only (Windows has no mode bits
 * that mean this).
 *
 * @example
 * await keyFileExposure('/home/u/.config/airlock/settings.json', { providers: { openai: { apiKey: 'sk-…' } } });
 * // 'providers.openai.apiKey in /home/u/… may be read by every user (mode 644): run `chmod 600 …` …'
 */
export async function keyFileExposure(file: string, values: SettingsLayer): Promise<string | undefined> {
  if (process.getuid === undefined) return undefined;
  const keys = Object.entries(values.providers ?? {})
    .filter(([, provider]) => provider?.apiKey !== undefined)
    .map(([name]) => `providers.${name}.apiKey`);
  if (keys.length === 0) return undefined;
  let mode: number;
  try {
    mode = (await stat(file)).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o044) === 0) return undefined;
  const who = (mode & 0o004) !== 0 ? 'every user' : 'its group';
  return (
    `${keys.join(' and ')} in ${file} may be read by ${who} (mode ${mode.toString(8).padStart(3, '0')}): anyone who can read the file can use the key. ` +
    `Run \`chmod 600 ${file}\`, or keep the key in the environment variable instead.`
  );
}

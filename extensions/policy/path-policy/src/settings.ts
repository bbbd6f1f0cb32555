import { RuleError } from './rules/compile.js';
import type { RuleEntry } from './rules/types.js';

const LISTS = ['deny', 'ask', 'allow'] as const;

/**
 * The rules in merged settings (`permissions: {deny, ask, allow}`), as entries with their list.
 * The host has validated the shape already; anything else here means the settings object is
 * not what this extension understands, and it refuses to load rather than guess.
 *
 * @example rulesFromSettings({ permissions: { deny: ['fs.read(**\/.env)'] } }) // [{ effect: 'deny', rule: 'fs.read(**\/.env)' }]
 */
export function rulesFromSettings(settings: Readonly<Record<string, unknown>>): RuleEntry[] {
  const permissions = settings.permissions;
  if (permissions === undefined) return [];
  if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions)) {
    throw new RuleError('settings.permissions is not an object {deny, ask, allow}; fix the settings file.');
  }
  const entries: RuleEntry[] = [];
  for (const effect of LISTS) {
    const list = (permissions as Record<string, unknown>)[effect];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new RuleError(`settings.permissions.${effect} is not a list of rules; fix the settings file.`);
    for (const rule of list) entries.push({ effect, rule: rule as RuleEntry['rule'] });
  }
  return entries;
}

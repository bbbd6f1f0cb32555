import Type, { type Static } from 'typebox';
import { RuleEntrySchema } from './rules/schema.js';

/**
 * The settings path-policy reads (its `settings` declaration): `permissions`, as the host keeps
 * them, one list with each rule's list and the settings layer and file it came from, so a
 * decision's matched rules and `policy explain` name where each was written. The host checks
 * the list against this schema before setup runs (a rule of the wrong shape stops the load,
 * naming its file); setup then compiles it, which finds what a schema cannot (a pattern that
 * does not parse, an example that fails).
 */
export const SettingsSchema = Type.Object({ permissions: Type.Array(RuleEntrySchema) });
export type Settings = Static<typeof SettingsSchema>;

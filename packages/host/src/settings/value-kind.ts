/**
 * What a settings value names, written into the schema itself, so that a value naming a path on
 * disk, a program or code can never come from a layer the user has not vouched for (an untrusted
 * project). One generic walk strips every such value, whatever the key is called; a new key only
 * has to be marked where it is declared. The same mark works in an extension's options schema.
 *
 * The mark is a JSON-schema annotation, `"x-airlock-value": "path" | "program" | "code" | "guard" | "text"`,
 * on the value's schema or on any schema above it (a marked object or list covers all inside).
 */
import { linearRegExp, linearSchema } from '@airlock/toolkit/util';
import Value from 'typebox/value';
import type { TSchema } from 'typebox';

/** The JSON-schema keyword that carries the mark. */
export const VALUE_KIND_KEYWORD = 'x-airlock-value';

/**
 * - `path`: a file or folder on disk (read, written or deleted there);
 * - `program`: a program to run;
 * - `code`: code to load or run (extensions, modules);
 * - `limit`: a safety limit (a call's time limit, a command's file size, process or CPU limit):
 *   a project that may set it may lift it, so only a trusted layer may;
 * - `guard`: a switch that can turn a protection off (`sandbox.mode`);
 * - `credential`: a model provider's API key, the variable it is read from, or the URL it is sent
 *   to: only the user's own file and the command line may set it, never a project, trusted or not
 *   (trusting a folder means letting its code run, not handing it your keys to send elsewhere);
 * - `text`: anything else (names, rules, messages): any layer may set it.
 */
export type ValueKind = 'path' | 'program' | 'code' | 'limit' | 'guard' | 'credential' | 'text';

/** Kinds only a trusted layer (built-in defaults, the user's file, a trusted project, the command line) may set. */
export const TRUSTED_ONLY_KINDS: readonly ValueKind[] = ['path', 'program', 'code', 'limit', 'guard', 'credential'];

/** Kinds only the user's own layers (the user's file, the command line) may set: a project's are ignored even when it is trusted. */
export const USER_ONLY_KINDS: readonly ValueKind[] = ['credential'];

/**
 * Schema options that mark a value; spread into a TypeBox constructor's options.
 *
 * @example Type.String({ minLength: 1, description: 'Shell to run', ...valueKind('program') })
 */
export function valueKind(kind: ValueKind): { [VALUE_KIND_KEYWORD]: ValueKind } {
  return { [VALUE_KIND_KEYWORD]: kind };
}

/** The mark on one schema node, if any. */
export function valueKindOf(schema: unknown): ValueKind | undefined {
  const kind = (schema as Record<string, unknown> | null)?.[VALUE_KIND_KEYWORD];
  return typeof kind === 'string' ? (kind as ValueKind) : undefined;
}

/** What `stripTrustedOnly` kept, and the dotted paths of what it took out. */
export interface StrippedValues<T> {
  value: T;
  /** e.g. `['limits.spillDir', 'extensions']`; empty when nothing was marked. */
  stripped: string[];
}

/**
 * A copy of `value` (already valid against `schema`) without any value whose schema, or a schema
 * above it, is marked `path`, `program`, `code` or `limit`. For an untrusted layer.
 *
 * @example
 * stripTrustedOnly(SettingsSchema, { limits: { spillDir: '..', maxBytes: 200 } })
 * // { value: { limits: { maxBytes: 200 } }, stripped: ['limits.spillDir'] }
 */
export function stripTrustedOnly<T>(schema: TSchema, value: T): StrippedValues<T> {
  return stripKinds(schema, value, TRUSTED_ONLY_KINDS);
}

/**
 * A copy of `value` without any value marked with one of `kinds` (on it or above it).
 *
 * @example
 * stripKinds(SettingsSchema, { providers: { openai: { baseUrl: 'https://evil.example' } } }, USER_ONLY_KINDS)
 * // { value: { providers: { openai: {} } }, stripped: ['providers.openai.baseUrl'] }
 */
export function stripKinds<T>(schema: TSchema, value: T, kinds: readonly ValueKind[]): StrippedValues<T> {
  const stripped: string[] = [];
  const kept = walk(schema, value, '', stripped, kinds);
  return { value: (kept === REMOVED ? undefined : kept) as T, stripped };
}

/**
 * Every place in `schema` where a string can appear with no mark on it or above it: for a test
 * that makes each new string-valued setting choose its kind. Literal and enum strings are fixed
 * values, not free text, and need no mark.
 *
 * @example unmarkedStrings(SettingsSchema) // [] when every string-valued key is classified
 */
export function unmarkedStrings(schema: TSchema): string[] {
  const found: string[] = [];
  const visit = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const s = node as Record<string, unknown>;
    if (valueKindOf(s) !== undefined) return;
    if ((s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) && !('const' in s) && !('enum' in s)) found.push(path || '(root)');
    // An unconstrained schema ({}, Type.Unknown) can hold a string too.
    if (Object.keys(s).every((k) => k === 'description' || k === 'default' || k === 'title')) found.push(`${path || '(root)'} (any value)`);
    for (const [key, child] of Object.entries(objectOf(s.properties))) visit(child, join(path, key));
    for (const child of Object.values(objectOf(s.patternProperties))) visit(child, join(path, '*'));
    if (typeof s.additionalProperties === 'object') visit(s.additionalProperties, join(path, '*'));
    if (s.items !== undefined) visit(s.items, `${path}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      if (Array.isArray(s[key])) for (const child of s[key] as unknown[]) visit(child, path);
    }
  };
  visit(schema, '');
  return [...new Set(found)];
}

const REMOVED = Symbol('removed');

function walk(schema: unknown, value: unknown, path: string, stripped: string[], kinds: readonly ValueKind[]): unknown {
  const kind = valueKindOf(schema);
  if (kind !== undefined && kinds.includes(kind)) {
    stripped.push(path || '(all)');
    return REMOVED;
  }
  if (typeof schema !== 'object' || schema === null) return value;
  const s = schema as Record<string, unknown>;

  // A union: follow the branch the value is an instance of (the layer was validated already).
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(s[key])) continue;
    const branch = (s[key] as TSchema[]).find((candidate) => Value.Check(linearSchema(candidate), value));
    return branch === undefined ? value : walk(branch, value, path, stripped, kinds);
  }
  if (Array.isArray(value)) {
    if (s.items === undefined) return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const kept = walk(s.items, item, `${path}[${i}]`, stripped, kinds);
      if (kept !== REMOVED) out.push(kept);
    });
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const properties = objectOf(s.properties);
    const patterns = Object.entries(objectOf(s.patternProperties));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const child =
        properties[key] ??
        patterns.find(([pattern]) => linearRegExp(pattern, 'u').test(key))?.[1] ??
        (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      const kept = child === undefined ? item : walk(child, item, join(path, key), stripped, kinds);
      if (kept !== REMOVED) out[key] = kept;
    }
    return out;
  }
  return value;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

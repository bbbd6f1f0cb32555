import { readFileSync } from 'node:fs';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { SettingsSchema, TRUSTED_ONLY_KINDS, USER_ONLY_KINDS, valueKind } from '../../src/index.js';
// @ts-expect-error — a plain .mjs script (it runs under node without a build step of its own); no types.
import { LAYER_EXCEPTIONS, renderSettingsReference, SETTINGS_DOC } from '../../scripts/settings-doc.mjs';

const kinds = { trustedOnly: TRUSTED_ONLY_KINDS, userOnly: USER_ONLY_KINDS };
const render = renderSettingsReference as (schema: unknown, k: typeof kinds) => string;
const page = (): string => readFileSync(SETTINGS_DOC as string, 'utf8');

/** The row of `key` in a rendered page, split into its cells. */
function row(doc: string, key: string): string[] {
  const line = doc.split('\n').find((l) => l.startsWith(`| \`${key}\` |`));
  if (line === undefined) throw new Error(`no row for ${key}`);
  return line.split(/ (?<!\\)\| /).map((c) => c.replace(/^\| |\s*\|$/g, ''));
}

/** Every dotted key of the schema's objects, walked here independently of the renderer. */
function objectKeys(node: Record<string, unknown>, path: string): string[] {
  const properties = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties).flatMap(([key, child]) => {
    const at = path ? `${path}.${key}` : key;
    return [at, ...objectKeys(child, at)];
  });
}

describe('docs/settings-reference.md is generated from the settings schema', () => {
  it('is fresh (run `pnpm --filter @airlock/host docs:settings` after changing the schema)', () => {
    expect(render(SettingsSchema, kinds)).toBe(page());
  });

  it('has a row for every key, with its default and type', () => {
    const doc = page();
    const keys = objectKeys(SettingsSchema as unknown as Record<string, unknown>, '');
    expect(keys.length).toBeGreaterThan(30);
    for (const key of keys) expect(() => row(doc, key)).not.toThrow();
    expect(row(doc, 'execution.timeoutMs').slice(1, 3)).toEqual(['integer ≥ 0', '`600000`']);
    expect(row(doc, 'sandbox.mode')[1]).toBe('"auto" \\| "required" \\| "off"');
    // Keys of the objects inside lists are documented too.
    expect(row(doc, 'permissions.deny[].match')[1]).toBe('string non-empty');
    expect(row(doc, 'extensions[].optional')[2]).toBe('`false`');
  });

  it('says which layers may set a key, from the value kind marked in the schema', () => {
    const doc = page();
    expect(row(doc, 'limits.spillDir')[3]).toBe('user, trusted project, code, CLI (path)');
    expect(row(doc, 'providers.openai.baseUrl')[3]).toBe('user, code, CLI; never a project (credential)');
    // A mark on a list covers the keys of its entries.
    expect(row(doc, 'extensions[].name')[3]).toBe('user, trusted project, code, CLI (code)');
    expect(row(doc, 'limits.maxLines')[3]).toBe('every layer');
    for (const [key, text] of Object.entries(LAYER_EXCEPTIONS as Record<string, string>)) expect(row(doc, key)[3]).toBe(text);
  });

  it('goes stale when a key is added, and shows the new key with its kind', () => {
    const changed = Type.Object({
      ...SettingsSchema.properties,
      sandbox: Type.Optional(
        Type.Object({ mode: Type.String(), shell: Type.String({ description: 'The shell.', default: '/bin/sh', ...valueKind('program') }) }, { description: 'x' }),
      ),
    });
    const next = render(changed, kinds);
    expect(next).not.toBe(page());
    expect(row(next, 'sandbox.shell')).toEqual(['`sandbox.shell`', 'string', '`"/bin/sh"`', 'user, trusted project, code, CLI (program)', 'The shell.']);
  });
});

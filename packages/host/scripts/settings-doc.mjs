// docs/settings-reference.md, rendered from the host's TypeBox settings schema (SettingsSchema), so
// the reference cannot drift from what the host validates. `node scripts/settings-doc.mjs --write`
// (after `tsc -b`) rewrites the page; packages/host/test/settings-doc.test.ts fails while the page
// and the schema differ.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SETTINGS_DOC = fileURLToPath(new URL('../../../docs/settings-reference.md', import.meta.url));

/**
 * Who may set a value, by its value kind (packages/host/src/settings/value-kind.ts). The layers are
 * those of docs/settings.md: defaults, user, project, local, code (the SDK), CLI flags.
 */
export function layersFor(kind, { trustedOnly, userOnly }) {
  if (kind !== undefined && userOnly.includes(kind)) return `user, code, CLI; never a project (${kind})`;
  if (kind !== undefined && trustedOnly.includes(kind)) return `user, trusted project, code, CLI (${kind})`;
  return 'every layer';
}

/**
 * Keys whose layers are limited by the host itself rather than by a value kind in the schema: the
 * column would otherwise say "every layer". Each names where it is enforced.
 */
export const LAYER_EXCEPTIONS = {
  // packages/host/src/host.ts (AIRLOCK_UNTRUSTED_ALLOW_RULES): an allow rule lets calls run unasked.
  'permissions.allow': 'every layer; an untrusted project\'s (and its local rules\') are ignored',
  // packages/host/src/trust/resolve.ts: a project must not be able to trust itself.
  'trust.default': 'user, code, CLI; a project\'s is ignored',
};

/**
 * The whole page: one section per top-level key, one table row per key at any depth (objects and
 * the objects inside lists and unions are followed), each with its type, default, the layers that
 * may set it and the description written in the schema.
 *
 * @example
 * renderSettingsReference(SettingsSchema, kinds).includes('| `execution.timeoutMs` |'); // true
 */
export function renderSettingsReference(schema, kinds) {
  const out = [
    '# Settings reference',
    '',
    '<!-- Generated from SettingsSchema (packages/host/src/settings/schema.ts) by packages/host/scripts/settings-doc.mjs:',
    '     run `pnpm --filter @airlock/host docs:settings`. Do not edit. -->',
    '',
    'Every key a settings file (or `--settings FILE`, or `openHost({ settings })`) may hold, with its type, its',
    'default and the layers that may set it. How layers merge, project trust and the file names Airlock looks',
    'for are in [settings.md](settings.md). "user, trusted project, code, CLI" means an untrusted project\'s',
    'value is ignored with a warning (its kind says why: a path, a program, code, a limit or a guard can be',
    'turned against you); a `credential` is never taken from a project, trusted or not. A `[]` in a key stands',
    'for each entry of a list. Unknown keys are errors at every depth.',
    '',
  ];
  for (const [key, section] of Object.entries(schema.properties)) {
    out.push(`## \`${key}\``, '', oneLine(section.description ?? ''), '');
    out.push('| key | type | default | who may set it | description |', '| --- | --- | --- | --- | --- |');
    for (const row of rows(section, key, undefined)) {
      if (row.path === key && row.type.startsWith('{')) row.description = '(the section)';
      out.push(`| \`${row.path}\` | ${cell(row.type)} | ${cell(row.default)} | ${row.layers(kinds)} | ${cell(row.description)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** One row for `node` at `path`, then one for each key inside it. */
function rows(node, path, inherited) {
  const kind = node['x-airlock-value'] ?? inherited;
  const own = {
    path,
    type: typeOf(node),
    default: 'default' in node ? `\`${JSON.stringify(node.default)}\`` : '—',
    description: oneLine(node.description ?? ''),
    layers: (kinds) => LAYER_EXCEPTIONS[path] ?? layersFor(kind, kinds),
  };
  const inside = [];
  for (const [key, child] of Object.entries(node.properties ?? {})) inside.push(...rows(child, `${path}.${key}`, kind));
  // Objects inside a list or a union: their keys too, once each (two branches may share a key).
  const branches = [node.items, ...(node.items?.anyOf ?? []), ...(node.anyOf ?? [])].filter((b) => b?.properties);
  const seen = new Set(inside.map((r) => r.path));
  for (const branch of branches) {
    const at = node.items !== undefined ? `${path}[]` : path;
    const branchKind = branch['x-airlock-value'] ?? node.items?.['x-airlock-value'] ?? kind;
    for (const [key, child] of Object.entries(branch.properties)) {
      for (const row of rows(child, `${at}.${key}`, branchKind)) {
        if (seen.has(row.path)) continue;
        seen.add(row.path);
        inside.push(row);
      }
    }
  }
  return [own, ...inside];
}

/** A short type: `integer ≥ 1`, `"auto" | "off"`, `(string | { match, … })[]`. */
export function typeOf(node) {
  if (node === undefined) return 'any';
  if ('const' in node) return JSON.stringify(node.const);
  if (Array.isArray(node.anyOf)) return node.anyOf.map(typeOf).join(' | ');
  if (node.type === 'array') {
    const item = typeOf(node.items);
    return `${item.includes(' ') ? `(${item})` : item}[]`;
  }
  if (node.type === 'object') {
    const required = new Set(node.required ?? []);
    const keys = Object.keys(node.properties ?? {}).map((k) => (required.has(k) ? k : `${k}?`));
    if (keys.length > 0) return `{ ${keys.join(', ')} }`;
    return node.patternProperties || node.additionalProperties ? 'object (any keys)' : 'object';
  }
  const bounds = [];
  if (node.minimum !== undefined) bounds.push(`≥ ${node.minimum}`);
  if (node.exclusiveMinimum !== undefined) bounds.push(`> ${node.exclusiveMinimum}`);
  if (node.minLength !== undefined && node.minLength > 0) bounds.push('non-empty');
  if (node.pattern !== undefined) bounds.push(`matching \`${node.pattern}\``);
  return [node.type ?? 'any', ...bounds].join(' ');
}

function oneLine(text) {
  return String(text).replace(/\s+/g, ' ').trim();
}

function cell(text) {
  return String(text).replace(/\|/g, '\\|');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const host = await import('../dist/index.js');
  const kinds = { trustedOnly: host.TRUSTED_ONLY_KINDS, userOnly: host.USER_ONLY_KINDS };
  const doc = existsSync(SETTINGS_DOC) ? readFileSync(SETTINGS_DOC, 'utf8') : '';
  const next = renderSettingsReference(host.SettingsSchema, kinds);
  if (!process.argv.includes('--write')) {
    process.stdout.write(next === doc ? 'docs/settings-reference.md is up to date\n' : 'docs/settings-reference.md is out of date: run with --write\n');
    process.exitCode = next === doc ? 0 : 1;
  } else if (next !== doc) {
    writeFileSync(SETTINGS_DOC, next);
    process.stdout.write('docs/settings-reference.md: rewritten from the settings schema\n');
  }
}

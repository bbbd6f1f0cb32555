import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCode, errorCodes, registerErrorCodes, renderErrorCatalogue } from '@airlock/toolkit';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script (it runs under node without a build step of its own); no types.
import { ERRORS_DOC, extensionEntries } from '../scripts/error-doc.mjs';
import { scaledMs } from '@airlock/kernel/testing';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// What registers codes: the host and the CLI (their modules), and every built-in extension's entry.
beforeAll(async () => {
  await import('@airlock/host');
  await import('../src/index.js');
  for (const entry of extensionEntries() as string[]) await import(entry);
}, scaledMs(60_000));

/** Names that look like codes but are environment variables Airlock sets or reads. */
const ENVIRONMENT_VARIABLES = new Set(['AIRLOCK_BASH_RUN']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'test') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}

/** Every quoted `AIRLOCK_…` string in the source of the packages and extensions, with where it is. */
function codesInSource(): Map<string, string> {
  const found = new Map<string, string>();
  const roots = ['packages', 'extensions/tools', 'extensions/policy', 'extensions/lib'].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name, 'src')),
  );
  for (const root of roots) {
    let files: string[];
    try {
      files = sourceFiles(root);
    } catch {
      continue;
    }
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/['"`](AIRLOCK_[A-Z0-9_]*[A-Z0-9])['"`]/g)) {
        if (!found.has(m[1]!)) found.set(m[1]!, relative(ROOT, file));
      }
    }
  }
  return found;
}

describe('the error catalogue', () => {
  it('has an entry for every code raised in source', () => {
    const codes = codesInSource();
    expect(codes.size).toBeGreaterThan(40);
    const missing = [...codes].filter(([code]) => !ENVIRONMENT_VARIABLES.has(code) && errorCode(code) === undefined).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it('lists the codes of the kernel, the host and the extension loader, each with who raises it and what to do', () => {
    expect(errorCode('AIRLOCK_TOOL_DUPLICATE')).toMatchObject({ raisedBy: 'kernel', severity: 'error' });
    expect(errorCode('AIRLOCK_SETTINGS_INVALID')).toMatchObject({ raisedBy: 'host (settings)', severity: 'error' });
    expect(errorCode('AIRLOCK_EXTENSION_NOT_INSTALLED')).toMatchObject({ raisedBy: 'host (extension loader)', severity: 'warning' });
    expect(errorCode('AIRLOCK_TRUST_FILE_INSECURE')).toMatchObject({ raisedBy: 'host (project trust)' });
    for (const e of errorCodes()) {
      expect(e.message.length, e.code).toBeGreaterThan(10);
      expect(e.action.length, e.code).toBeGreaterThan(10);
    }
  });

  it('refuses a code another module already uses, and a code that is not SCREAMING_SNAKE_CASE', () => {
    const spec = { severity: 'error' as const, message: 'A rule does not parse.', action: 'Fix the rule.' };
    expect(() => registerErrorCodes('@acme/guard', { AIRLOCK_TOOL_DUPLICATE: spec })).toThrow(/registered twice: by kernel and by @acme\/guard/);
    expect(() => registerErrorCodes('@acme/guard', { 'acme-bad': spec })).toThrow(/SCREAMING_SNAKE_CASE/);
    expect(() => registerErrorCodes('@acme/guard', { ACME_NO_ACTION: { ...spec, action: ' ' } })).toThrow(/has no action/);
    expect(errorCode('ACME_NO_ACTION')).toBeUndefined();
  });

  it('puts an extension’s own codes on the page, under its name', () => {
    const page = renderErrorCatalogue([
      ...errorCodes(),
      { code: 'ACME_GUARD_RULE_INVALID', raisedBy: '@acme/guard', severity: 'error', message: 'A rule in {file} does not parse.', action: 'Fix the rule.' },
    ]);
    expect(page).toContain('## @acme/guard');
    expect(page).toContain('### `ACME_GUARD_RULE_INVALID`');
  });
});

describe('docs/errors.md', () => {
  it('is the page generated from the catalogue (run `pnpm --filter @airlock/cli docs:errors` after changing a code)', () => {
    expect(readFileSync(ERRORS_DOC as string, 'utf8')).toBe(renderErrorCatalogue(errorCodes()));
  });

  it('goes stale when an entry changes', () => {
    const doc = readFileSync(ERRORS_DOC as string, 'utf8');
    const changed = errorCodes().map((e) => (e.code === 'AIRLOCK_TOOL_DUPLICATE' ? { ...e, action: 'Something else.' } : e));
    expect(renderErrorCatalogue(changed)).not.toBe(doc);
  });
});

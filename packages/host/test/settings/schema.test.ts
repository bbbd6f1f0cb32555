import { describe, expect, it } from 'vitest';
import { isAirlockError } from '@airlock/toolkit';
import {
  defaultSettings,
  defineSettings,
  SETTING_KEYS,
  SettingsError,
  SettingsSchema,
  settingsProblems,
  validateSettings,
  type SettingsLayer,
} from '../../src/settings/index.js';

/** Throw-and-catch: the SettingsError validateSettings raises for `value` as a project file. */
function invalid(value: unknown, field?: string): SettingsError {
  try {
    validateSettings(value, { layer: 'project', file: '/repo/.airlockrc.json', ...(field ? { field } : {}) });
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error('expected validation to fail');
}

describe('the schema documents every option where it is declared', () => {
  // Fields whose default is not a fixed value; their description says what happens instead.
  const noStaticDefault = new Set(['tools.allow', 'limits.spillDir', 'providers.openai', 'providers.anthropic']);

  it('gives every section and field a description, and a default unless it has none by nature', () => {
    const properties = SettingsSchema.properties as Record<string, { description?: string; default?: unknown; properties?: Record<string, { description?: string; default?: unknown }> }>;
    expect(Object.keys(properties)).toEqual([...SETTING_KEYS]);
    for (const [key, section] of Object.entries(properties)) {
      expect(section.description, key).toBeTruthy();
      expect('default' in section, key).toBe(true);
      for (const [field, schema] of Object.entries(section.properties ?? {})) {
        expect(schema.description, `${key}.${field}`).toBeTruthy();
        if (!noStaticDefault.has(`${key}.${field}`)) expect('default' in schema, `${key}.${field}`).toBe(true);
      }
    }
  });

  it('derives the built-in defaults from those defaults', () => {
    expect(defaultSettings()).toEqual({
      extensions: [],
      tools: { exclude: [], noBuiltin: false, none: false },
      execution: { mode: 'parallel', maxConcurrency: 8, timeoutMs: 600000 },
      limits: { maxLines: 2000, maxBytes: 51200, spillBudget: 256 * 1024 * 1024, spillRetentionDays: 7, spillTotalBudget: 1024 ** 3 },
      images: { autoResize: true, blockImages: false, maxDimension: 2000, maxBytes: 4718592 },
      sandbox: { mode: 'auto' },
      trust: { default: 'ask' },
      telemetry: {},
      providers: {},
    });
    // A fresh copy each time: nobody can change the defaults by mutating a result.
    defaultSettings().tools.exclude.push('x');
    expect(defaultSettings().tools.exclude).toEqual([]);
  });
});

describe('valid layers', () => {
  it('accepts every field in every form', () => {
    const layer = defineSettings({
      extensions: ['@acme/jira', './tools/x.ts', { name: '@acme/guard', options: { strict: true }, enabled: false }, { path: 'local/ext' }],
      tools: { allow: ['read', 'bash'], exclude: ['write'], noBuiltin: false, none: false },
      permissions: {
        deny: ['fs.read(**/.env)', { match: 'bash(git push --force*)', effect: 'deny', reason: 'no force pushes', id: 'no-force', examples: { match: ['bash(git push --force origin)'], notMatch: ['bash(git push)'] } }],
        ask: ['net(*)'],
        allow: [{ match: 'read' }],
      },
      execution: { mode: 'sequential', maxConcurrency: 1, timeoutMs: 0 },
      limits: { maxLines: 10, maxBytes: 100, spillDir: '.airlock/spill', spillBudget: 1 },
      images: { autoResize: false, blockImages: true },
      trust: { default: 'never' },
    });
    expect(validateSettings(layer, { layer: 'user', file: '/u/settings.json' })).toEqual(layer);
    expect(validateSettings({}, { layer: 'cli' })).toEqual({});
  });

  it('treats undefined (possible in a TS config) as "not set"', () => {
    expect(validateSettings({ limits: { spillDir: undefined, maxLines: 5 }, tools: undefined }, { layer: 'cli' })).toEqual({ limits: { maxLines: 5 } });
  });
});

describe('invalid values name the file, the path inside it and what was expected', () => {
  it('an out-of-range integer', () => {
    const error = invalid({ execution: { maxConcurrency: 0 } });
    expect(error.code).toBe('AIRLOCK_SETTINGS_INVALID');
    expect(isAirlockError(error)).toBe(true);
    expect(error.file).toBe('/repo/.airlockrc.json');
    expect(error.layer).toBe('project');
    expect(error.problems).toEqual([{ path: 'execution.maxConcurrency', message: 'expected an integer ≥ 1, got 0' }]);
    expect(error.message).toContain('/repo/.airlockrc.json');
    expect(error.message).toContain('execution.maxConcurrency: expected an integer ≥ 1, got 0');
  });

  it('every problem at once, each at its own path', () => {
    const error = invalid({ execution: { mode: 'fast', timeoutMs: 1.5 }, images: { autoResize: 'yes' }, tools: { allow: 'read' }, trust: { default: 'sometimes' } });
    // In the order they appear in the file.
    expect(error.problems).toEqual([
      { path: 'execution.mode', message: 'expected "parallel" or "sequential", got "fast"' },
      { path: 'execution.timeoutMs', message: 'expected an integer ≥ 0, got 1.5' },
      { path: 'images.autoResize', message: 'expected true or false, got "yes"' },
      { path: 'tools.allow', message: 'expected a list of strings, got "read"' },
      { path: 'trust.default', message: 'expected one of "ask", "always", "never", got "sometimes"' },
    ]);
  });

  it('a path inside package.json starts at its "airlock" field', () => {
    const error = invalid({ limits: { maxBytes: -1 } }, 'airlock');
    expect(error.problems).toEqual([{ path: 'airlock.limits.maxBytes', message: 'expected an integer ≥ 1, got -1' }]);
    expect(error.message).toContain('field "airlock"');
  });

  it('a list item is named by its index', () => {
    expect(settingsProblems({ permissions: { deny: ['ok', 42, ''] } })).toEqual([
      { path: 'permissions.deny[1]', message: 'expected a non-empty string or an object with "match", got 42' },
      // A string was meant: the string branch says what is wrong with it.
      { path: 'permissions.deny[2]', message: 'expected a non-empty string, got ""' },
    ]);
  });

  it('a structured rule is checked field by field', () => {
    expect(settingsProblems({ permissions: { ask: [{ reason: 'x' }, { match: 'net(*)', effect: 'maybe', examples: { match: 'net(a)' } }] } })).toEqual([
      { path: 'permissions.ask[0].match', message: 'missing; expected a non-empty string' },
      { path: 'permissions.ask[1].effect', message: 'expected one of "deny", "ask", "allow", got "maybe"' },
      { path: 'permissions.ask[1].examples.match', message: 'expected a list of strings, got "net(a)"' },
    ]);
  });

  it("a rule's effect must agree with its list", () => {
    expect(settingsProblems({ permissions: { deny: [{ match: 'read', effect: 'allow' }] } })).toEqual([
      {
        path: 'permissions.deny[0].effect',
        message: '"allow" contradicts the list the rule is in (permissions.deny); remove "effect" or move the rule to permissions.allow',
      },
    ]);
  });

  it('an extension entry has exactly one of name and path', () => {
    expect(settingsProblems({ extensions: [{ name: 'a', path: './a' }, { options: {} }, 7, { name: 'b', option: {} }] })).toEqual([
      { path: 'extensions[0]', message: '"name" and "path" cannot go together; expected exactly one of them' },
      { path: 'extensions[1]', message: 'expected an object with "name" or "path", got an object' },
      { path: 'extensions[2]', message: 'expected a non-empty string or an object with "name" or "path", got 7' },
      { path: 'extensions[3].option', message: 'unknown key "option" in extensions[3]. Did you mean "options" or "optional"?' },
    ]);
  });

  it('"name" is for packages, and one file lists an extension once', () => {
    const extensions = [{ name: './tools/x.ts' }, '@acme/a', './b/../tools/x.ts', { name: '@acme/a', options: { v: 1 } }, { path: 'tools/x.ts' }];
    expect(settingsProblems({ extensions })).toEqual([
      { path: 'extensions[0].name', message: '"./tools/x.ts" is a path; expected a package name here. Use { "path": "./tools/x.ts" } for a file or folder' },
      { path: 'extensions[3]', message: 'lists the same extension as extensions[1]; expected each extension once per file (merge the two entries)' },
      { path: 'extensions[4]', message: 'lists the same extension as extensions[2]; expected each extension once per file (merge the two entries)' },
    ]);
  });

  it('the file must hold an object; a function export is called out', () => {
    expect(settingsProblems(['a'])).toEqual([{ path: '', message: 'expected an object of settings, got a list' }]);
    expect(settingsProblems('tools: x')).toEqual([{ path: '', message: 'expected an object of settings, got "tools: x"' }]);
    expect(settingsProblems(() => ({}))[0]?.message).toMatch(/got a function\. Export the settings object itself/);
  });
});

describe('unknown keys are errors, with the closest known key', () => {
  it('a top-level typo', () => {
    const error = invalid({ extentions: ['@acme/a'] });
    expect(error.problems).toEqual([{ path: 'extentions', message: 'unknown setting "extentions". Did you mean "extensions"?' }]);
    expect(error.message).toContain('Did you mean "extensions"?');
  });

  it('a nested typo', () => {
    expect(settingsProblems({ execution: { maxConcurency: 2 }, permissions: { denny: [] } })).toEqual([
      { path: 'execution.maxConcurency', message: 'unknown key "maxConcurency" in execution. Did you mean "maxConcurrency"?' },
      { path: 'permissions.denny', message: 'unknown key "denny" in permissions. Did you mean "deny"?' },
    ]);
  });

  it('nothing close: the known keys are listed', () => {
    expect(settingsProblems({ model: 'x' })).toEqual([
      { path: 'model', message: `unknown setting "model". Known settings: ${SETTING_KEYS.join(', ')}.` },
    ]);
  });

  it('odd key names are quoted in the path', () => {
    expect(settingsProblems({ tools: { 'no-builtin': true } })[0]?.path).toBe('tools["no-builtin"]');
  });
});

it('SettingsLayer is the static type of the schema', () => {
  const layer: SettingsLayer = { execution: { mode: 'parallel' }, extensions: [{ path: './x' }] };
  expect(settingsProblems(layer)).toEqual([]);
});

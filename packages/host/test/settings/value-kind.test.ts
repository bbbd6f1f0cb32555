import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { SettingsSchema, stripTrustedOnly, unmarkedStrings, valueKind, valueKindOf, VALUE_KIND_KEYWORD } from '../../src/settings/index.js';

describe('every string-valued setting says what it names', () => {
  it('the settings schema has no unmarked string (a new key must choose: path, program, code or text)', () => {
    expect(unmarkedStrings(SettingsSchema)).toEqual([]);
  });

  it('the check fails for an unmarked string, also one nested in a list, a record or a union', () => {
    const schema = Type.Object({
      marked: Type.String(valueKind('text')),
      plain: Type.String(),
      list: Type.Array(Type.String()),
      record: Type.Record(Type.String(), Type.Unknown()),
      either: Type.Union([Type.Literal('a'), Type.Object({ file: Type.String() })]),
      covered: Type.Object({ inside: Type.String() }, valueKind('code')),
    });
    expect(unmarkedStrings(schema)).toEqual(['plain', 'list[]', 'record.* (any value)', 'either.file']);
  });

  it('the keys that name a path or code are marked as such', () => {
    const limits = SettingsSchema.properties.limits as unknown as { properties: Record<string, unknown> };
    expect(valueKindOf(limits.properties.spillDir)).toBe('path');
    expect(valueKindOf(SettingsSchema.properties.extensions)).toBe('code');
    expect(VALUE_KIND_KEYWORD).toBe('x-airlock-value');
  });
});

describe('stripTrustedOnly', () => {
  it('takes out path, program and code values wherever they are, and keeps the rest', () => {
    const schema = Type.Object({
      shell: Type.Optional(Type.String(valueKind('program'))),
      name: Type.Optional(Type.String(valueKind('text'))),
      nested: Type.Optional(Type.Object({ log: Type.Optional(Type.String(valueKind('path'))), size: Type.Optional(Type.Integer()) })),
      hooks: Type.Optional(Type.Array(Type.Union([Type.String(valueKind('text')), Type.Object({ run: Type.String(valueKind('code')), label: Type.String(valueKind('text')) })]))),
    });
    const { value, stripped } = stripTrustedOnly(schema, {
      shell: '/tmp/evil',
      name: 'x',
      nested: { log: '/etc/passwd', size: 3 },
      hooks: ['a', { run: 'rm -rf ~', label: 'b' }],
    });
    expect(value).toEqual({ name: 'x', nested: { size: 3 }, hooks: ['a', { label: 'b' }] });
    expect(stripped).toEqual(['shell', 'nested.log', 'hooks[1].run']);
  });

  it('in settings: limits.spillDir goes, limits.maxBytes and rules stay', () => {
    const { value, stripped } = stripTrustedOnly(SettingsSchema, {
      limits: { spillDir: '..', maxBytes: 200 },
      permissions: { deny: ['fs.read(**/.env)', { match: 'bash(rm *)', reason: 'no' }] },
    });
    expect(value).toEqual({ limits: { maxBytes: 200 }, permissions: { deny: ['fs.read(**/.env)', { match: 'bash(rm *)', reason: 'no' }] } });
    expect(stripped).toEqual(['limits.spillDir']);
  });
});

import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { didYouMean, propertyPath, schemaProblemLines, schemaProblems } from '../../src/util/index.js';

const Edit = Type.Object({
  path: Type.String({ minLength: 1 }),
  edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() }), { minItems: 1 }),
  mode: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('slow')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

describe('schemaProblems: one wording for every schema error', () => {
  it('is empty for a value that fits, and for nothing else', () => {
    expect(schemaProblems(Edit, { path: 'a', edits: [{ oldText: 'x', newText: 'y' }] })).toEqual([]);
    expect(schemaProblems(Edit, { path: 'a', edits: [] })).not.toEqual([]);
  });

  it('names each wrong place as people write it, what was expected there and what was found', () => {
    expect(schemaProblemLines(Edit, { path: '', edits: [{ oldText: 1 }], mode: 'medium', limit: 0 })).toEqual([
      'path: expected a non-empty string, got ""',
      'edits[0].newText: missing; expected a string',
      'edits[0].oldText: expected a string, got 1',
      'mode: expected "fast" or "slow", got "medium"',
      'limit: expected an integer from 1 to 100, got 0',
    ]);
    expect(schemaProblemLines(Edit, 'read a.txt')).toEqual(['(root): expected an object, got "read a.txt"']);
  });

  it('gives the keys from the top down, so a caller can name a flag or a field', () => {
    const [p] = schemaProblems(Edit, { path: 'a', edits: [{ oldText: 'x', newText: 2 }] });
    expect(p).toMatchObject({ path: 'edits[0].newText', keys: ['edits', 0, 'newText'], kind: 'invalid' });
  });

  it('suggests the closest name for an unknown key, where the schema is closed or the caller closes it', () => {
    const Closed = Type.Object({ executionMode: Type.String() }, { additionalProperties: false });
    expect(schemaProblemLines(Closed, { executionMode: 'x', excutionMode: 'y' }, { keyNoun: 'setting' })).toEqual([
      'excutionMode: unknown setting "excutionMode". Did you mean "executionMode"?',
    ]);
    const Open = Type.Object({ greeting: Type.Optional(Type.String()) });
    expect(schemaProblems(Open, { greting: 'hi' })).toEqual([]);
    expect(schemaProblems(Open, { greting: 'hi' }, { closed: true, keyNoun: 'option' })).toEqual([
      { path: 'greting', keys: ['greting'], kind: 'unknown_key', message: 'unknown option "greting". Did you mean "greeting"?' },
    ]);
    expect(schemaProblemLines(Type.Object({ a: Type.Object({ b: Type.Number() }) }), { a: { zzz: 1, b: 1 } }, { closed: true })).toEqual([
      'a.zzz: unknown key "zzz" in a. Known keys: b.',
    ]);
  });

  it('picks the union branch the value was aiming at', () => {
    const Entry = Type.Union([Type.String({ minLength: 1 }), Type.Object({ name: Type.String() }, { additionalProperties: false }), Type.Object({ path: Type.String() }, { additionalProperties: false })]);
    expect(schemaProblemLines(Entry, 5)).toEqual(['(root): expected a non-empty string or an object with "name" or "path", got 5']);
    expect(schemaProblemLines(Entry, { name: 1 })).toEqual(['name: expected a string, got 1']);
    expect(schemaProblemLines(Entry, { name: 'a', path: 'b' })).toEqual(['(root): "name" and "path" cannot go together; expected exactly one of them']);
  });

  it('still names the path for keywords it does not read (TypeBox words them)', () => {
    const Email = Type.Object({ email: Type.String({ format: 'email' }) });
    const lines = schemaProblemLines(Email, { email: 'nope' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^email: .*format/);
  });

  it('covers string length and pattern, list sizes, enums and exclusive bounds', () => {
    const S = Type.Object({
      code: Type.String({ pattern: '^[A-Z]+$', maxLength: 3 }),
      tags: Type.Array(Type.String(), { maxItems: 1 }),
      level: Type.Unsafe<string>({ enum: ['low', 'high'] }),
      ratio: Type.Number({ exclusiveMinimum: 0 }),
    });
    expect(schemaProblemLines(S, { code: 'abcd', tags: ['a', 'b'], level: 'mid', ratio: 0 })).toEqual([
      'code: expected a string of at most 3 characters matching /^[A-Z]+$/, got "abcd"',
      'tags: expected a list of strings of at most 1 item, got a list',
      'level: expected "low" or "high", got "mid"',
      'ratio: expected a number > 0, got 0',
    ]);
  });
});

describe('the pieces', () => {
  it('propertyPath writes keys as people do', () => {
    expect(propertyPath(['permissions', 'deny', 0])).toBe('permissions.deny[0]');
    expect(propertyPath(['options', 'my-key'])).toBe('options["my-key"]');
    expect(propertyPath([])).toBe('');
  });

  it('didYouMean says nothing when nothing is close', () => {
    expect(didYouMean([])).toBe('');
    expect(didYouMean(['read', 'grep'])).toBe('Did you mean "read" or "grep"?');
  });
});

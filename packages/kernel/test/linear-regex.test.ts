import Type from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../src/index.js';
import { catastrophicPatterns, createToolHarness } from '@airlock/kernel/testing';
import { LinearRegExp, linearRegExpProblem, linearSchema, schemaProblemLines, schemaRegexProblem } from '@airlock/toolkit/util';

/**
 * Issue 24 §3: a regex from outside (here, a tool's JSON Schema) is matched by RE2 in linear
 * time, or refused with the reason. No assertion is timed: each test's own timeout is the bound,
 * and a backtracking engine would not finish any of these inputs before the sun goes out.
 */

const CASES = catastrophicPatterns();
const BOUND = 60_000;

/** A tool whose parameters are `schema`; it answers with the arguments it was given. */
function echoTool(parameters: object) {
  return {
    name: 'echo',
    label: 'Echo',
    description: 'Echo the arguments.',
    parameters: parameters as never,
    async execute(_id: string, params: unknown) {
      return { content: [{ type: 'text' as const, text: JSON.stringify(params) }] };
    },
  };
}

describe('LinearRegExp: the class of catastrophic patterns, in linear time', () => {
  it(`decides every generated pattern (${CASES.length}) on its evil input, and its short inputs exactly as JavaScript does`, () => {
    for (const c of CASES) {
      const re = new LinearRegExp(c.pattern, 'u');
      expect(re.test(c.evil), c.pattern).toBe(new RegExp(c.pattern, 'u').test(c.twin));
      for (const s of c.short) expect(re.test(s), `${c.pattern} on ${JSON.stringify(s)}`).toBe(new RegExp(c.pattern, 'u').test(s));
    }
  }, BOUND);

  it('keeps JavaScript meaning where RE2 differs: \\s, \\S and . (with and without s), [^] and []', () => {
    const inputs = ['', 'a', ' ', '\t', '\u00a0', '\u2028', '\ufeff', '\r', '\n', '\u200b', 'é', '😀'];
    for (const pattern of ['^\\s$', '^\\S$', '^[\\s]$', '^[\\S]$', '^[^\\s]$', '^.$', '^[.]$', '^[^]$', '^[]$', '^[a\\sb]$']) {
      for (const flags of ['u', 'su', '']) {
        const native = new RegExp(pattern, flags);
        const linear = new LinearRegExp(pattern, flags);
        // Without u, JavaScript's . matches half a surrogate pair; RE2 always reads code points.
        for (const s of inputs.filter((x) => flags.includes('u') || x !== '😀')) expect(linear.test(s), `/${pattern}/${flags} on ${JSON.stringify(s)}`).toBe(native.test(s));
      }
    }
  });

  it('behaves as a RegExp: exec with groups and index, g and y with lastIndex, replace and matchAll', () => {
    expect(new LinearRegExp('(?<y>\\d{4})-(\\d\\d)').exec('on 2024-05!')).toMatchObject({ 0: '2024-05', 1: '2024', 2: '05', index: 3, groups: { y: '2024' } });
    expect('a1b22c333'.replace(new LinearRegExp('\\d+', 'g'), '#')).toBe('a#b#c#');
    expect([...'a1b22'.matchAll(new LinearRegExp('\\d', 'g'))].map((m) => m.index)).toEqual([1, 3, 4]);
    const sticky = new LinearRegExp('b', 'y');
    expect(sticky.test('ab')).toBe(false);
    sticky.lastIndex = 1;
    expect(sticky.test('ab')).toBe(true);
    const lines = new LinearRegExp('^b', 'gm');
    lines.lastIndex = 1;
    expect(lines.exec('a\nb')?.index).toBe(2);
    expect(new LinearRegExp('HELLO', 'i').test('well, hello')).toBe(true);
    expect(new LinearRegExp('\\u{1F600}|\\u0041', 'u').test('x😀')).toBe(true);
    expect(new LinearRegExp('^\\p{Script=Greek}+$', 'u').test('αβ')).toBe(true);
    expect(new LinearRegExp('^a/b$').source).toBe('^a/b$');
  });

  it('refuses what RE2 cannot run, saying what and what to do; a typo is a typo', () => {
    expect(linearRegExpProblem('(?=x)a')).toBe('it uses a lookahead "(?="');
    expect(linearRegExpProblem('(?!x)a')).toBe('it uses a lookahead "(?!"');
    expect(linearRegExpProblem('(?<=x)a')).toBe('it uses a lookbehind "(?<="');
    expect(linearRegExpProblem('(?<!x)a')).toBe('it uses a lookbehind "(?<!"');
    expect(linearRegExpProblem('(a)\\1')).toBe('it uses a backreference "\\1"');
    expect(linearRegExpProblem('(?<n>a)\\k<n>')).toBe('it uses a backreference "\\k<"');
    expect(linearRegExpProblem('a{2000}')).toMatch(/at most 1000 repetitions/);
    expect(linearRegExpProblem('(', 'u')).toMatch(/^it is not a valid regular expression: /);
    expect(() => new LinearRegExp('(?=x)')).toThrow(/cannot be matched in linear time: it uses a lookahead "\(\?=". .*write the pattern without them/);
    expect(linearRegExpProblem('[(?=x)]\\(?=')).toBeUndefined(); // inside a class, or escaped: plain characters
  });
});

describe('tool schemas: every regex keyword TypeBox would compile, checked in linear time', () => {
  /** Each place a schema puts a regex, as a schema for `c` and an argument object that puts `text` there. */
  const surfaces: { name: string; schema: (pattern: string) => object; args: (text: string) => Record<string, unknown> }[] = [
    { name: 'pattern', schema: (p) => ({ type: 'object', properties: { q: { type: 'string', pattern: p } } }), args: (t) => ({ q: t }) },
    { name: 'nested pattern', schema: (p) => ({ type: 'object', properties: { l: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string', pattern: p }] } } } }), args: (t) => ({ l: [t] }) },
    { name: 'patternProperties', schema: (p) => ({ type: 'object', properties: { m: { type: 'object', patternProperties: { [p]: { type: 'number' } } } } }), args: (t) => ({ m: { [t]: 'not a number' } }) },
    {
      name: 'patternProperties + additionalProperties',
      schema: (p) => ({ type: 'object', properties: { m: { type: 'object', properties: { known: {} }, patternProperties: { [p]: { type: 'number' } }, additionalProperties: false } } }),
      args: (t) => ({ m: { [t]: 1 } }),
    },
    { name: 'propertyNames', schema: (p) => ({ type: 'object', properties: { m: { type: 'object', propertyNames: { pattern: p } } } }), args: (t) => ({ m: { [t]: 1 } }) },
    { name: 'TypeBox Record key', schema: (p) => Type.Object({ m: Type.Record(Type.String({ pattern: p }), Type.Integer()) }), args: (t) => ({ m: { [t]: '5' } }) },
  ];

  for (const surface of surfaces) {
    it(`${surface.name}: every generated pattern answers on its evil input, and short inputs as JavaScript decides them`, async () => {
      for (const c of CASES.filter((_, i) => i % 4 === surfaces.indexOf(surface) % 4)) {
        const schema = surface.schema(c.pattern);
        await using h = createToolHarness(echoTool(schema));
        const evil = await h.call(surface.args(c.evil));
        expect(evil.outcome, c.pattern).toBe(Value.Check(schema as never, surface.args(c.twin)) ? 'ok' : 'invalid');
        // The reference: TypeBox with JavaScript's engine, on inputs short enough for it.
        for (const s of c.short.slice(0, 4)) {
          const expected = Value.Check(schema as never, surface.args(s));
          expect(Compile(linearSchema(schema as never)).Check(surface.args(s)), `${surface.name} ${c.pattern} on ${JSON.stringify(s)}`).toBe(expected);
        }
      }
    }, BOUND);
  }

  it('the trial: "^(a+)+$" on 40 a\'s and a "!" is an invalid-arguments answer, and 40 a\'s still pass', async () => {
    await using h = createToolHarness(echoTool({ type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } }, required: ['q'] }));
    const bad = await h.call({ q: `${'a'.repeat(40)}!` });
    expect(bad.outcome).toBe('invalid');
    expect(bad.content[0]).toMatchObject({ text: expect.stringContaining('q: expected a string matching /^(a+)+$/') });
    expect((await h.call({ q: 'a'.repeat(40) })).outcome).toBe('ok');
  });

  it('a schema with nothing to change is given to TypeBox as it is (no copy, no cost)', () => {
    const plain = Type.Object({ path: Type.String({ minLength: 1 }), n: Type.Optional(Type.Integer()), m: Type.Record(Type.String(), Type.Number()) });
    expect(linearSchema(plain)).toBe(plain);
    const patterned = Type.Object({ q: Type.String({ pattern: '^x$' }) });
    expect(linearSchema(patterned)).not.toBe(patterned);
    expect(linearSchema(patterned)).toBe(linearSchema(patterned)); // prepared once
  });

  it('keeps TypeBox defaults and conversion where the regexes were', async () => {
    const schema = Type.Object({ q: Type.String({ pattern: '^\\d+$' }), n: Type.Optional(Type.Integer({ default: 7 })) });
    await using h = createToolHarness(echoTool(schema));
    const r = await h.call({ q: '12' });
    expect(r.content[0]).toMatchObject({ text: '{"q":"12","n":7}' });
  });

  it('refuses a schema whose regex RE2 cannot run, with its place in the schema, at registration', () => {
    expect(schemaRegexProblem({ type: 'object', properties: { q: { type: 'string', pattern: '^(?=a)' } } })).toMatch(/^#\/properties\/q\/pattern: \/\^\(\?=a\)\/ cannot be matched in linear time: it uses a lookahead/);
    expect(schemaRegexProblem({ type: 'object', patternProperties: { '(a)\\1': {} } })).toMatch(/^#\/patternProperties\/\(a\)\\1: .*backreference/);
    expect(schemaRegexProblem({ type: 'object', patternProperties: { 'x+': { $ref: '#/$defs/a' } }, $defs: { a: {} } })).toMatch(/^#\/patternProperties\/x\+\/\$ref: /);
    expect(schemaRegexProblem({ type: 'object', patternProperties: { 'x+': {} }, unevaluatedProperties: false })).toMatch(/unevaluatedProperties/);
    const registry = new ToolRegistry();
    expect(() => registry.register(echoTool({ type: 'object', properties: { q: { type: 'string', pattern: '(?<=a)b' } } }) as never, { source: 'extension' })).toThrow(
      /parameters at #\/properties\/q\/pattern: .*lookbehind/,
    );
  });

  it('the walker that words the problems matches in linear time too', () => {
    const schema = { type: 'object', properties: { q: { type: 'string', pattern: '^(\\w+\\s?)*$' } }, patternProperties: { '^(a|a)*$': { type: 'number' } } };
    const evil = `${'word '.repeat(5000)}!`;
    expect(schemaProblemLines(schema as never, { q: evil })).toEqual([expect.stringMatching(/^q: expected a string matching/)]);
    expect(schemaProblemLines(schema as never, { ['a'.repeat(20_000)]: 'x' })).toEqual([expect.stringMatching(/expected a number, got "x"$/)]);
  });
});

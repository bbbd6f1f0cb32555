import Type from 'typebox';
import { describe, expect, test } from 'vitest';
import type { AnyAgentTool } from '@airlock/contract';
import { AirlockError, isAirlockError } from '@airlock/toolkit';
import {
  providerToolName,
  providerToolNames,
  strictProblems,
  toGeminiSchema,
  toGeminiTool,
  toProviderTools,
} from '@airlock/toolkit';
import type { ProviderId } from '@airlock/toolkit';
import { toJsonSchema, toJsonValue } from '@airlock/toolkit';
import { ToolRegistry } from '../src/index.js';

function tool(name: string, parameters: unknown, extra: Record<string, unknown> = {}): AnyAgentTool {
  return {
    name,
    label: `${name} label`,
    description: `The ${name} tool.`,
    parameters,
    execute: async () => ({ content: [] }),
    ...extra,
  } as AnyAgentTool;
}

/** Strings, an integer with a minimum, optional fields, a nested array of objects, a literal union, a nullable, closed objects, descriptions. */
const readParams = Type.Object(
  {
    path: Type.String({ description: 'File to read, relative to the working directory.' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Lines to read at most.' })),
    mode: Type.Union([Type.Literal('text'), Type.Literal('binary')], { description: 'How to read it.' }),
    ranges: Type.Array(
      Type.Object({ start: Type.Integer({ minimum: 0 }), end: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
    ),
    encoding: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

/** The same schema as plain JSON Schema, written out by hand. */
const readJsonSchema = {
  type: 'object',
  required: ['path', 'mode', 'ranges', 'encoding'],
  properties: {
    path: { type: 'string', description: 'File to read, relative to the working directory.' },
    limit: { type: 'integer', minimum: 1, description: 'Lines to read at most.' },
    mode: {
      anyOf: [
        { type: 'string', const: 'text' },
        { type: 'string', const: 'binary' },
      ],
      description: 'How to read it.',
    },
    ranges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['start'],
        properties: { start: { type: 'integer', minimum: 0 }, end: { type: 'integer' } },
        additionalProperties: false,
      },
    },
    encoding: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  additionalProperties: false,
};

const readTool = tool('read', readParams, { label: 'Read file', description: 'Read a text file.' });

const PROVIDERS: ProviderId[] = ['openai', 'anthropic', 'gemini', 'mcp'];

describe('json-schema', () => {
  test('copies only own enumerable keys: TypeBox bookkeeping does not leak', () => {
    expect(Object.getOwnPropertyNames(readParams)).toContain('~kind');
    const copy = toJsonSchema(readParams);
    expect(copy).toStrictEqual(readJsonSchema);
    expect(JSON.stringify(copy)).not.toContain('~');
  });

  test('keeps a property literally named __proto__ as data', () => {
    const copy = toJsonSchema(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'));
    expect(Object.keys(copy.properties as object)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(copy.properties)).toBe(Object.prototype);
  });

  test('drops undefined and functions like JSON, and refuses what JSON cannot carry', () => {
    expect(toJsonValue({ a: undefined, b: () => 1, c: 1 })).toStrictEqual({ c: 1 });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toJsonValue(cyclic)).toThrow(/\$\.self refers back/);
    expect(() => toJsonValue({ n: 1n })).toThrow(/\$\.n is a bigint/);
    expect(() => toJsonValue([Number.POSITIVE_INFINITY])).toThrow(/Infinity/);
    expect(() => toJsonValue([undefined])).toThrow(/\$\[0\]/);
    expect(() => toJsonSchema('string')).toThrow(/must be an object/);
    // A shared (acyclic) sub-schema is fine and copied twice.
    const shared = { type: 'string' };
    const out = toJsonValue({ a: shared, b: shared }) as Record<string, unknown>;
    expect(out.a).toEqual(shared);
    expect(out.a).not.toBe(out.b);
  });
});

describe('exact provider shapes', () => {
  test('OpenAI Chat Completions', () => {
    expect(toProviderTools([readTool], 'openai')).toStrictEqual([
      { type: 'function', function: { name: 'read', description: 'Read a text file.', parameters: readJsonSchema } },
    ]);
  });

  test('Anthropic Messages', () => {
    expect(toProviderTools([readTool], 'anthropic')).toStrictEqual([
      { name: 'read', description: 'Read a text file.', input_schema: readJsonSchema },
    ]);
  });

  test('MCP tools/list item', () => {
    expect(toProviderTools([readTool], 'mcp')).toStrictEqual([
      { name: 'read', title: 'Read file', description: 'Read a text file.', inputSchema: readJsonSchema },
    ]);
  });

  test('Gemini FunctionDeclaration', () => {
    expect(toProviderTools([readTool], 'gemini')).toStrictEqual([
      {
        name: 'read',
        description: 'Read a text file.',
        parameters: {
          type: 'OBJECT',
          properties: {
            path: { type: 'STRING', description: 'File to read, relative to the working directory.' },
            limit: { type: 'INTEGER', description: 'Lines to read at most.', minimum: 1 },
            mode: { type: 'STRING', format: 'enum', description: 'How to read it.', enum: ['text', 'binary'] },
            ranges: {
              type: 'ARRAY',
              items: {
                type: 'OBJECT',
                properties: { start: { type: 'INTEGER', minimum: 0 }, end: { type: 'INTEGER' } },
                required: ['start'],
              },
            },
            encoding: { type: 'STRING', nullable: true },
          },
          required: ['path', 'mode', 'ranges', 'encoding'],
        },
      },
    ]);
    expect(toGeminiTool([readTool])).toStrictEqual({ functionDeclarations: toProviderTools([readTool], 'gemini') });
  });

  test('a Gemini tool without arguments leaves parameters out; the others keep an object schema', () => {
    const now = tool('now', Type.Object({}));
    expect(toProviderTools([now], 'gemini')).toStrictEqual([{ name: 'now', description: 'The now tool.' }]);
    expect(toProviderTools([now], 'anthropic')[0]?.input_schema).toStrictEqual({ type: 'object', properties: {} });
    expect(toProviderTools([now], 'mcp')[0]?.inputSchema).toStrictEqual({ type: 'object', properties: {} });
  });
});

describe('OpenAI strict mode', () => {
  const weather = tool(
    'weather',
    Type.Object({
      city: Type.String(),
      unit: Type.Union([Type.Literal('c'), Type.Literal('f')]),
      at: Type.Object({ lat: Type.Number(), lon: Type.Number() }),
      days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }) })),
    }),
  );

  test('a qualifying schema is sent strict, with every object closed', () => {
    const [out] = toProviderTools([weather], 'openai', { strict: true });
    expect(out?.function.strict).toBe(true);
    const p = out?.function.parameters as Record<string, any>;
    expect(p.additionalProperties).toBe(false);
    expect(p.properties.at.additionalProperties).toBe(false);
    expect(p.properties.days.items.additionalProperties).toBe(false);
    expect(p.required).toEqual(['city', 'unit', 'at', 'days']);
    // The tool's own schema is not closed behind its back.
    expect('additionalProperties' in weather.parameters).toBe(false);
  });

  test('a schema with optional properties is sent unchanged with strict: false, and says why', () => {
    const [out] = toProviderTools([readTool], 'openai', { strict: true });
    expect(out).toStrictEqual({
      type: 'function',
      function: { name: 'read', description: 'Read a text file.', parameters: readJsonSchema, strict: false },
    });
    expect(strictProblems(readParams).problems).toEqual([
      '$: property "limit" is optional; strict mode requires every property in "required"',
      '$.ranges[]: property "end" is optional; strict mode requires every property in "required"',
    ]);
    expect(strictProblems(Type.Object({ r: Type.Record(Type.String(), Type.Number()), u: Type.String({ format: 'uri' }) })).problems).toEqual([
      '$.r: "patternProperties" is not supported in strict mode',
      '$.u: format "uri" is not supported in strict mode',
    ]);
  });
});

/** Gemini `Schema` fields (generativelanguage v1beta), kept independent of the implementation's list. */
const GEMINI_FIELDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering',
  'default', 'items', 'minimum', 'maximum',
]);
const GEMINI_TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT']);
const GEMINI_FORMATS: Record<string, string[]> = { STRING: ['enum', 'date-time'], NUMBER: ['float', 'double'], INTEGER: ['int32', 'int64'] };

/** Every way `schema` would be rejected by Gemini's parser or validator, by path. */
function geminiViolations(schema: unknown, path = 'parameters'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${path}: not a schema object`];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  for (const key of Object.keys(s)) if (!GEMINI_FIELDS.has(key)) out.push(`${path}: unknown field "${key}"`);
  const type = s.type;
  if (type !== undefined && !GEMINI_TYPES.has(type as string)) out.push(`${path}: bad type ${JSON.stringify(type)}`);
  if (s.format !== undefined && !(GEMINI_FORMATS[type as string] ?? []).includes(s.format as string)) {
    out.push(`${path}: format ${JSON.stringify(s.format)} not allowed for ${String(type)}`);
  }
  if (s.enum !== undefined) {
    if (type !== 'STRING') out.push(`${path}: enum on ${String(type)}`);
    if (!Array.isArray(s.enum) || s.enum.length === 0 || !s.enum.every((v) => typeof v === 'string')) out.push(`${path}: enum must be non-empty strings`);
  }
  if (s.nullable !== undefined && typeof s.nullable !== 'boolean') out.push(`${path}: nullable must be boolean`);
  if (s.description !== undefined && typeof s.description !== 'string') out.push(`${path}: description must be a string`);
  for (const k of ['minimum', 'maximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']) {
    if (s[k] !== undefined && typeof s[k] !== 'number') out.push(`${path}: ${k} must be a number`);
  }
  if (s.properties !== undefined) {
    if (type !== 'OBJECT') out.push(`${path}: properties only allowed for OBJECT`);
    const props = s.properties as Record<string, unknown>;
    if (Object.keys(props).length === 0) out.push(`${path}: properties should be non-empty for OBJECT`);
    for (const [k, v] of Object.entries(props)) out.push(...geminiViolations(v, `${path}.properties.${k}`));
  }
  if (s.required !== undefined) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    if (!Array.isArray(s.required) || s.required.length === 0) out.push(`${path}: required must be a non-empty array`);
    else for (const r of s.required) if (!Object.hasOwn(props, r as string)) out.push(`${path}: required "${String(r)}" is not a property`);
  }
  if (s.items !== undefined) {
    if (type !== 'ARRAY') out.push(`${path}: items only allowed for ARRAY`);
    out.push(...geminiViolations(s.items, `${path}.items`));
  }
  if (s.anyOf !== undefined) {
    if (!Array.isArray(s.anyOf) || s.anyOf.length === 0) out.push(`${path}: anyOf must be a non-empty array`);
    else s.anyOf.forEach((m, i) => out.push(...geminiViolations(m, `${path}.anyOf[${i}]`)));
  }
  return out;
}

/** Everything Gemini's subset lacks, in one schema. */
function nastySchema() {
  const Node = Type.Cyclic({ Node: Type.Object({ id: Type.String(), children: Type.Array(Type.Ref('Node')) }) }, 'Node');
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.com/nasty',
    $comment: 'not for the model',
    type: 'object',
    additionalProperties: false,
    $defs: {
      Point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false },
    },
    properties: {
      url: { type: 'string', format: 'uri', examples: ['https://a.example'], default: 'https://b.example' },
      when: { type: 'string', format: 'date-time' },
      email: { type: 'string', format: 'email', minLength: 3, maxLength: 99, pattern: '^.+@.+$' },
      count: { type: 'integer', format: 'int32', exclusiveMinimum: 0, exclusiveMaximum: 100, multipleOf: 5 },
      ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      legacy: { type: 'number', minimum: 0, exclusiveMinimum: true },
      color: { const: 'red' },
      size: { enum: ['s', 'm', 'l', null] },
      level: { anyOf: [{ const: 1 }, { const: 2 }, { const: 3 }] },
      flag: { const: true },
      nick: { type: ['string', 'null'], minLength: 1 },
      id: { type: ['string', 'integer'], description: 'Name or number.', minLength: 2, minimum: 0 },
      shape: {
        oneOf: [
          { $ref: '#/$defs/Point' },
          { type: 'object', properties: { r: { type: 'number' } }, required: ['r', 'missing'], patternProperties: { '^x': {} } },
        ],
      },
      where: { $ref: '#/$defs/Point', description: 'Where it happens.' },
      both: {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'boolean' } } },
        ],
      },
      complex: { allOf: [{ type: 'string' }, { not: { const: 'x' } }], description: 'Anything but x.' },
      maybe: { type: ['object', 'null'], properties: { z: { type: 'string' } }, required: ['z'] },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, minItems: 2, uniqueItems: true, contains: { type: 'string' } },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3 },
      map: { type: 'object', additionalProperties: { type: 'number' }, propertyNames: { pattern: '^[a-z]+$' } },
      record: Type.Record(Type.String(), Type.Number()),
      conditional: {
        type: 'object',
        properties: { kind: { type: 'string' } },
        if: { properties: { kind: { const: 'a' } } },
        then: { required: ['kind'] },
        else: {},
        dependentRequired: { kind: [] },
      },
      anything: {},
      truthy: true,
      tree: Node,
      intersect: Type.Intersect([Type.Object({ p: Type.String() }), Type.Object({ q: Type.Number() })]),
      readonlyField: { type: 'string', readOnly: true, deprecated: true, contentEncoding: 'base64', title: 'RO' },
    },
    required: ['url', 'shape', 'ghost'],
  };
}

describe('Gemini schema mapping', () => {
  test('the checker itself rejects raw JSON Schema (so a pass means something)', () => {
    const raw = geminiViolations(toJsonSchema(nastySchema()));
    expect(raw).toContain('parameters: unknown field "$schema"');
    expect(raw).toContain('parameters: unknown field "additionalProperties"');
    expect(raw).toContain('parameters: bad type "object"');
    expect(raw).toContain('parameters.properties.color: unknown field "const"');
    expect(raw).toContain('parameters: required "ghost" is not a property');
  });

  test('removes everything Gemini rejects', () => {
    const schema = toGeminiSchema(nastySchema());
    expect(geminiViolations(schema)).toEqual([]);
    expect(geminiViolations(toGeminiSchema(readParams))).toEqual([]);
  });

  test('keeps the meaning: enums, required, nullable, bounds, inlined refs, merged allOf', () => {
    const p = toGeminiSchema(nastySchema())?.properties ?? {};
    const point = { type: 'OBJECT', properties: { x: { type: 'NUMBER' }, y: { type: 'NUMBER' } }, required: ['x', 'y'] };
    expect(p.url).toStrictEqual({ type: 'STRING', description: 'Format: uri.', default: 'https://b.example' });
    expect(p.when).toStrictEqual({ type: 'STRING', format: 'date-time' });
    expect(p.email).toStrictEqual({ type: 'STRING', description: 'Format: email.', minLength: 3, maxLength: 99, pattern: '^.+@.+$' });
    expect(p.count).toStrictEqual({ type: 'INTEGER', format: 'int32', description: 'Must be a multiple of 5.', minimum: 1, maximum: 99 });
    expect(p.ratio).toStrictEqual({ type: 'NUMBER', description: 'Must be greater than 0.', minimum: 0, maximum: 1 });
    expect(p.legacy).toStrictEqual({ type: 'NUMBER', description: 'Must be greater than 0.', minimum: 0 });
    expect(p.color).toStrictEqual({ type: 'STRING', format: 'enum', enum: ['red'] });
    expect(p.size).toStrictEqual({ type: 'STRING', format: 'enum', nullable: true, enum: ['s', 'm', 'l'] });
    expect(p.level).toStrictEqual({ type: 'INTEGER', description: 'Allowed values: 1, 2, 3.' });
    expect(p.flag).toStrictEqual({ type: 'BOOLEAN', description: 'Must be true.' });
    expect(p.nick).toStrictEqual({ type: 'STRING', nullable: true, minLength: 1 });
    expect(p.id).toStrictEqual({
      description: 'Name or number.',
      anyOf: [
        { type: 'STRING', minLength: 2 },
        { type: 'INTEGER', minimum: 0 },
      ],
    });
    expect(p.shape).toStrictEqual({ anyOf: [point, { type: 'OBJECT', properties: { r: { type: 'NUMBER' } }, required: ['r'] }] });
    expect(p.where).toStrictEqual({ ...point, description: 'Where it happens.' });
    expect(p.both).toStrictEqual({ type: 'OBJECT', properties: { a: { type: 'STRING' }, b: { type: 'BOOLEAN' } }, required: ['a'] });
    expect(p.intersect).toStrictEqual({ type: 'OBJECT', properties: { p: { type: 'STRING' }, q: { type: 'NUMBER' } }, required: ['p', 'q'] });
    expect(p.complex).toStrictEqual({ description: 'Anything but x.' });
    expect(p.maybe).toStrictEqual({ type: 'OBJECT', nullable: true, properties: { z: { type: 'STRING' } }, required: ['z'] });
    expect(p.pair).toStrictEqual({
      type: 'ARRAY',
      description: 'Items must be unique.',
      items: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] },
      minItems: 2,
    });
    expect(p.tags).toStrictEqual({ type: 'ARRAY', items: { type: 'STRING', format: 'enum', enum: ['a', 'b'] }, maxItems: 3 });
    expect(p.map).toStrictEqual({ type: 'OBJECT' });
    expect(p.record).toStrictEqual({ type: 'OBJECT' });
    expect(p.conditional).toStrictEqual({ type: 'OBJECT', properties: { kind: { type: 'STRING' } } });
    expect(p.anything).toStrictEqual({});
    expect(p.truthy).toStrictEqual({});
    expect(p.readonlyField).toStrictEqual({ type: 'STRING', title: 'RO' });
    expect(p.tree).toStrictEqual({
      type: 'OBJECT',
      properties: {
        id: { type: 'STRING' },
        children: { type: 'ARRAY', items: { type: 'OBJECT', description: 'Same structure as the enclosing Node (recursive).' } },
      },
      required: ['id', 'children'],
    });
    expect(toGeminiSchema(nastySchema())?.required).toEqual(['url', 'shape']);
  });

  test('a union with a null member and a description keeps both', () => {
    const s = toGeminiSchema(Type.Object({ v: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Count, or null.' }) }));
    expect(s?.properties?.v).toStrictEqual({ type: 'INTEGER', description: 'Count, or null.', nullable: true, minimum: 0 });
  });
});

describe('names', () => {
  const odd = [tool('github:create_issue', Type.Object({})), tool('mcp:files/read_file', Type.Object({})), tool('7zip', Type.Object({}))];

  test.each<[ProviderId, string[]]>([
    ['openai', ['github_create_issue', 'mcp_files_read_file', '7zip']],
    ['anthropic', ['github_create_issue', 'mcp_files_read_file', '7zip']],
    ['gemini', ['github_create_issue', 'mcp_files_read_file', '_7zip']],
    ['mcp', ['github_create_issue', 'mcp_files_read_file', '7zip']],
  ])('%s gets names it accepts, and providerToolNames maps them back', (provider, expected) => {
    const out = toProviderTools(odd, provider) as unknown as Record<string, unknown>[];
    const got = out.map((t) => (provider === 'openai' ? (t.function as { name: string }).name : (t.name as string)));
    expect(got).toEqual(expected);
    expect(odd.map((t) => providerToolName(t.name, provider))).toEqual(expected);
    expect([...providerToolNames(odd, provider)]).toEqual(expected.map((name, i) => [name, odd[i]?.name]));
  });

  test('two tools that would share a provider name are an error naming both', () => {
    const clash = [tool('a:b', Type.Object({})), tool('a_b', Type.Object({}))];
    for (const provider of PROVIDERS) {
      let error: unknown;
      try {
        toProviderTools(clash, provider);
      } catch (e) {
        error = e;
      }
      expect(isAirlockError(error, 'AIRLOCK_PROVIDER_TOOL_NAME')).toBe(true);
      expect((error as AirlockError).details).toEqual({ provider, providerName: 'a_b', tools: ['a:b', 'a_b'], problem: 'collision' });
      expect((error as AirlockError).message).toContain('"a:b", "a_b"');
    }
  });

  test('a Gemini name that the leading-underscore fix pushes past 64 characters is an error', () => {
    const long = tool(`1${'x'.repeat(63)}`, Type.Object({}));
    expect(() => toProviderTools([long], 'openai')).not.toThrow();
    expect(() => toProviderTools([long], 'gemini')).toThrow(/longer than the 64 characters gemini accepts/);
  });
});

describe('output properties', () => {
  function registry(): ToolRegistry {
    const r = new ToolRegistry();
    r.register(readTool, { source: 'builtin' });
    r.register(tool('bash', Type.Object({ command: Type.String() })), { source: 'builtin' });
    r.register(tool('github:create_issue', Type.Object({ title: Type.String(), labels: Type.Optional(Type.Array(Type.String())) })), {
      source: 'extension',
      origin: '@acme/github',
    });
    return r;
  }

  test.each(PROVIDERS)('%s: plain JSON, deterministic, detached from the tools', (provider) => {
    const tools = registry().list().map((r) => r.tool);
    const before = JSON.stringify(tools.map((t) => t.parameters));
    const out = toProviderTools(tools, provider);

    expect(JSON.parse(JSON.stringify(out))).toStrictEqual(out);
    expect(JSON.stringify(toProviderTools(tools, provider))).toBe(JSON.stringify(out));

    // No object in the output is an object of a tool's schema.
    const schemaObjects = new Set<object>();
    const collect = (v: unknown) => {
      if (typeof v !== 'object' || v === null || schemaObjects.has(v)) return;
      schemaObjects.add(v);
      for (const child of Object.values(v)) collect(child);
    };
    for (const t of tools) collect(t.parameters);
    const shared: string[] = [];
    const walk = (v: unknown, path: string) => {
      if (typeof v !== 'object' || v === null) return;
      if (schemaObjects.has(v)) shared.push(path);
      for (const [k, child] of Object.entries(v)) walk(child, `${path}.${k}`);
    };
    walk(out, '$');
    expect(shared).toEqual([]);

    // Mutating the output changes neither the tools nor the next output.
    const scribble = (v: unknown) => {
      if (typeof v !== 'object' || v === null) return;
      for (const [k, child] of Object.entries(v)) {
        if (typeof child === 'object' && child !== null) scribble(child);
        else (v as Record<string, unknown>)[k] = 'scribbled';
      }
    };
    const again = JSON.stringify(toProviderTools(tools, provider));
    scribble(out);
    expect(JSON.stringify(tools.map((t) => t.parameters))).toBe(before);
    expect(JSON.stringify(toProviderTools(tools, provider))).toBe(again);
  });

  test('a selection gives only its enabled tools, in registration order', () => {
    const selection = registry().select({ excludeTools: ['bash'] });
    const names = toProviderTools(selection, 'anthropic').map((t) => t.name);
    expect(names).toEqual(['read', 'github_create_issue']);
    expect(toProviderTools(selection, 'mcp').map((t) => t.name)).toEqual(['read', 'github_create_issue']);
    expect(providerToolNames(selection, 'openai').get('github_create_issue')).toBe('github:create_issue');
    expect(toProviderTools(registry().select({ tools: [] }), 'openai')).toEqual([]);
  });
});

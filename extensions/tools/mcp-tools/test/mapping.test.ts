import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { McpTool } from '../src/connection.js';
import { judgementFor, newNotes, noteLines, unmatchedKeys, usesServerWideForm, type Kind } from '../src/mapping.js';
import { nameGlob } from '../src/name-glob.js';

type Settings = Record<string, Kind | Record<string, Kind>>;

/** The tools of @modelcontextprotocol/server-filesystem as it lists them (names, arguments, annotations). */
const REFERENCE: McpTool[] = [
  ['read_text_file', ['path', 'head', 'tail'], true],
  ['read_multiple_files', ['paths'], true],
  ['write_file', ['path', 'content'], false, true],
  ['edit_file', ['path', 'edits', 'dryRun'], false, true],
  ['create_directory', ['path'], false, false],
  ['list_directory', ['path'], true],
  ['move_file', ['source', 'destination'], false, true],
  ['list_allowed_directories', [], true],
].map(([name, args, readOnlyHint, destructiveHint]) => ({
  name: name as string,
  inputSchema: { type: 'object' as const, properties: Object.fromEntries((args as string[]).map((a) => [a, { type: 'string' }])) },
  annotations: { readOnlyHint: readOnlyHint as boolean, ...(destructiveHint === undefined ? {} : { destructiveHint: destructiveHint as boolean }) },
}));

function judgeAll(settings: Settings, tools: McpTool[] = REFERENCE, trust = true) {
  const notes = newNotes();
  notes.legacy = usesServerWideForm(settings);
  notes.unmatched = unmatchedKeys('fs', settings, tools);
  const judged = Object.fromEntries(tools.map((t) => [t.name, judgementFor('fs', t, settings, trust, notes)]));
  return { judged, notes, lines: noteLines('fs', notes) };
}

describe('a server-wide mapping never judges a writing tool as a read (the trial: {"path": "fs.read"} on the filesystem server)', () => {
  it('write_file and edit_file are judged as reads and writes; move_file, which the old form cannot name, has unknown effects; read-only tools stay reads', () => {
    const { judged, lines } = judgeAll({ path: 'fs.read', paths: 'fs.read' });
    expect(judged.write_file!.kinds).toEqual({ path: ['fs.read', 'fs.write'] });
    expect(judged.edit_file!.kinds).toEqual({ path: ['fs.read', 'fs.write'] });
    expect(judged.create_directory!.kinds).toEqual({ path: ['fs.read', 'fs.write'] });
    expect(judged.read_text_file!.kinds).toEqual({ path: ['fs.read'] });
    expect(judged.read_multiple_files!.kinds).toEqual({ paths: ['fs.read'] });
    expect(judged.move_file).toMatchObject({ kinds: {}, unknownEffects: true });
    expect(judged.list_allowed_directories).toMatchObject({ kinds: {}, unknownEffects: false });
    expect(judged.write_file!.judgedBy).toContain('mcpServers.fs.resources (the server-wide form)');
    expect(judged.write_file!.judgedBy).toContain('judged as a write too');
    const said = lines.join('\n');
    expect(said).toContain('the old form');
    expect(said).toContain('Map each tool by name instead');
    expect(said).toMatch(/write_file.*mapped as reads by a glob or the server-wide form/);
    expect(said).toMatch(/move_file has no resources mapping and is not marked read-only: its calls ask \(default:unknown-effects\)/);
  });

  it('a by-name mapping is taken at its word; one that calls a destructive tool a read is warned about at load', () => {
    const { judged, lines } = judgeAll({ write_file: { path: 'fs.read' }, read_text_file: { path: 'fs.read' }, 'list_*': { path: 'fs.read' } });
    expect(judged.write_file!.kinds).toEqual({ path: ['fs.read'] });
    expect(judged.list_directory!.kinds).toEqual({ path: ['fs.read'] });
    expect(lines.join('\n')).toContain('mcpServers.fs.resources["write_file"] maps write_file as a read (fs.read), but the server marks it destructive (destructiveHint)');
    expect(lines.join('\n')).not.toContain('["read_text_file"] maps');
  });

  it('names that match no tool, and arguments a tool does not take, are reported', () => {
    const { lines } = judgeAll({ wirte_file: { path: 'fs.write' }, write_file: { file: 'fs.write', path: 'fs.write' } });
    expect(lines.join('\n')).toContain('mcpServers.fs.resources["wirte_file"] matches none of its tools');
    expect(lines.join('\n')).toContain('mcpServers.fs.resources["write_file"] maps "file", which write_file does not take');
  });

  it('trustAnnotations: false believes no read-only mark: every unmapped tool has unknown effects, and a glob read also counts as a write', () => {
    const { judged } = judgeAll({ 'read_*': { path: 'fs.read' } }, REFERENCE, false);
    expect(judged.list_allowed_directories!.unknownEffects).toBe(true);
    expect(judged.read_text_file!.kinds).toEqual({ path: ['fs.read', 'fs.write'] });
  });
});

/** A reference for star-only globs, used only as the test's oracle. */
function globOracle(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
}

describe('nameGlob: * is any run of characters, everything else itself', () => {
  it('agrees with a regular-expression oracle on generated names and patterns', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '_', '.', '(', '+'), maxLength: 8 });
    fc.assert(
      fc.property(text, fc.array(text, { minLength: 1, maxLength: 4 }), (name, parts) => {
        const pattern = parts.join('*');
        expect(nameGlob(pattern)(name)).toBe(globOracle(pattern).test(name));
        // A pattern made from the name by starring a part always matches it.
        if (name.length > 1) expect(nameGlob(`${name.slice(0, 1)}*${name.slice(-1)}`)(name)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the mapping class, generated: tools × annotations × by-name, glob and server-wide entries', () => {
  const ARGS = ['path', 'paths', 'source', 'destination', 'url'];
  const KINDS: Kind[] = ['fs.read', 'fs.write', 'net'];
  const toolArb = fc.record({
    name: fc.constantFrom('read_file', 'write_file', 'list_dir', 'move_file', 'search', 'fetch_url', 'delete_path'),
    args: fc.subarray(ARGS),
    readOnlyHint: fc.option(fc.boolean(), { nil: undefined }),
    destructiveHint: fc.option(fc.boolean(), { nil: undefined }),
  });
  const argMap = fc.dictionary(fc.constantFrom(...ARGS), fc.constantFrom(...KINDS), { maxKeys: 3 });
  const key = fc.oneof(
    fc.constantFrom('read_file', 'write_file', 'list_dir', 'move_file', 'search', 'fetch_url', 'delete_path', 'fs__write_file'),
    fc.constantFrom('*', 'read_*', '*_file', '*_*', 'list*', '*e*', 'nothing_*'),
  );
  const settingsArb = fc.tuple(fc.dictionary(key, argMap, { maxKeys: 4 }), fc.dictionary(fc.constantFrom(...ARGS), fc.constantFrom(...KINDS), { maxKeys: 2 }));

  it('no weakening, unknown effects exactly when nothing describes a tool that may write, and every by-name entry applied as written', () => {
    fc.assert(
      fc.property(fc.uniqueArray(toolArb, { selector: (t) => t.name, minLength: 1, maxLength: 5 }), settingsArb, fc.boolean(), (specs, [perTool, serverWide], trust) => {
        const settings: Settings = { ...serverWide, ...perTool };
        const tools: McpTool[] = specs.map((t) => ({
          name: t.name,
          inputSchema: { type: 'object', properties: Object.fromEntries(t.args.map((a) => [a, { type: 'string' }])) },
          annotations: { ...(t.readOnlyHint === undefined ? {} : { readOnlyHint: t.readOnlyHint }), ...(t.destructiveHint === undefined ? {} : { destructiveHint: t.destructiveHint }) },
        }));
        const { judged, notes } = judgeAll(settings, tools, trust);
        for (const spec of specs) {
          const j = judged[spec.name]!;
          const readOnly = trust && spec.readOnlyHint === true;
          const exact = Object.entries(perTool).filter(([k]) => k === spec.name || k === `fs__${spec.name}`);
          const exactArgs = new Map<string, Set<Kind>>();
          for (const [, map] of exact) for (const [a, k] of Object.entries(map)) exactArgs.set(a, new Set([...(exactArgs.get(a) ?? []), k]));
          // Every kind a by-name entry gives is judged.
          for (const [a, ks] of exactArgs) for (const k of ks) expect(j.kinds[a], `${spec.name}.${a}`).toContain(k);
          for (const [a, ks] of Object.entries(j.kinds)) {
            // Only arguments the tool takes, unless an entry naming the tool says otherwise.
            expect(spec.args.includes(a) || exactArgs.has(a), `${spec.name}.${a}`).toBe(true);
            // A read on a tool that may write is also a write, unless only entries naming the tool gave it.
            if (ks.includes('fs.read') && !ks.includes('fs.write') && !readOnly) expect(exactArgs.get(a)?.has('fs.read'), `${spec.name}.${a} judged as a read only`).toBe(true);
          }
          // General entries: each argument the tool takes gets at least their kind.
          const general = [...Object.entries(perTool).filter(([k]) => !exact.some(([e]) => e === k) && (globOracle(k).test(spec.name) || globOracle(k).test(`fs__${spec.name}`))).map(([, m]) => m), serverWide];
          for (const map of general) for (const [a, k] of Object.entries(map)) if (spec.args.includes(a)) expect(j.kinds[a], `${spec.name}.${a} from a general entry`).toContain(k);
          const mapped = Object.keys(j.kinds).length > 0;
          expect(j.unknownEffects, spec.name).toBe(!mapped && !readOnly);
          expect(notes.unknown.includes(spec.name)).toBe(j.unknownEffects);
          // A by-name read on a tool the server does not call read-only is said at load.
          const values = Object.values(j.kinds);
          if (exact.length > 0 && spec.readOnlyHint !== true && values.some((k) => k.includes('fs.read')) && !values.some((k) => k.includes('fs.write'))) {
            expect(notes.readButWrites.has(spec.name), `${spec.name}: no warning`).toBe(true);
          }
          // policy explain names every entry that judged the tool.
          if (mapped) for (const [k, map] of exact) if (Object.keys(map).length > 0) expect(j.judgedBy).toContain(JSON.stringify(k));
        }
      }),
      { numRuns: 400 },
    );
  });
});

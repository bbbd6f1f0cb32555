import { describe, expect, it } from 'vitest';
import { compileMatcher, mappingFor, shownInput, targetFromResources, targetNow } from '../src/index.js';
import { scaledMs } from '@airlock/kernel/testing';

describe("matchers as Claude Code reads them", () => {
  it('empty, "*" and none match every tool', () => {
    for (const m of [undefined, '', '*']) expect(compileMatcher(m)('mcp__fs__read')).toBe(true);
  });

  it('names with | or , are an exact list; case matters; Edit does not match MultiEdit', () => {
    const m = compileMatcher('Edit|Write, Bash');
    expect(['Edit', 'Write', 'Bash'].map(m)).toEqual([true, true, true]);
    expect(['MultiEdit', 'edit', 'Bash2'].map(m)).toEqual([false, false, false]);
    expect(compileMatcher('mcp__memory')('mcp__memory__create')).toBe(false);
  });

  it('anything else is an unanchored regular expression', () => {
    expect(compileMatcher('Edit.*')('NotebookEdit')).toBe(true);
    expect(compileMatcher('^Edit$')('NotebookEdit')).toBe(false);
    expect(compileMatcher('mcp__memory__.*')('mcp__memory__create')).toBe(true);
  });

  it('an invalid pattern is an error naming it, not a hook that silently never runs', () => {
    expect(() => compileMatcher('Bash(')).toThrow(/matcher "Bash\(" is not a valid regular expression/);
  });
});

describe('tool names and inputs, both ways', () => {
  it('maps the built-in tools to Claude Code names and leaves third-party tools alone', () => {
    expect(['bash', 'read', 'edit', 'write', 'grep', 'find', 'ls', 'acme_deploy'].map((n) => mappingFor(n).ccName)).toEqual(['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Glob', 'LS', 'acme_deploy']);
    expect(mappingFor('acme_deploy').fromCC({ target: 'prod' })).toEqual({ target: 'prod' });
  });

  it('relative paths become absolute file_path; bash seconds become milliseconds and back', () => {
    expect(mappingFor('write').toCC({ path: 'src/a.ts', content: 'x' }, targetNow('/w'))).toEqual({ file_path: '/w/src/a.ts', content: 'x' });
    expect(mappingFor('bash').toCC({ command: 'ls', timeout: 3 }, targetNow('/w'))).toEqual({ command: 'ls', timeout: 3000 });
    expect(mappingFor('bash').fromCC({ command: 'ls', timeout: 1500, description: 'list' })).toEqual({ command: 'ls', timeout: 2 });
  });

  it('one edit is an Edit input, several are an edits list; both come back as Airlock edits', () => {
    const one = mappingFor('edit').toCC({ path: '/w/a', edits: [{ oldText: 'a', newText: 'b' }] }, targetNow('/w'));
    expect(one).toEqual({ file_path: '/w/a', old_string: 'a', new_string: 'b', replace_all: false });
    expect(mappingFor('edit').fromCC(one)).toEqual({ path: '/w/a', edits: [{ oldText: 'a', newText: 'b' }] });
    const two = mappingFor('edit').toCC({ path: '/w/a', edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'c', newText: 'd' }] }, targetNow('/w'));
    expect(two).toEqual({ file_path: '/w/a', edits: [{ old_string: 'a', new_string: 'b', replace_all: false }, { old_string: 'c', new_string: 'd', replace_all: false }] });
    expect(mappingFor('edit').fromCC(two)).toEqual({ path: '/w/a', edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'c', newText: 'd' }] });
  });

  it('a field the Airlock tool cannot take is refused with the fields it can', () => {
    expect(() => mappingFor('read').fromCC({ file_path: '/a', pages: '1-2' })).toThrow(/"pages".*file_path, offset, limit/);
    expect(() => mappingFor('grep').fromCC({ pattern: 'x', output_mode: 'count' })).toThrow(/output_mode "count"/);
    expect(mappingFor('grep').fromCC({ pattern: 'x', '-i': true, head_limit: 5, output_mode: 'content' })).toEqual({ pattern: 'x', ignoreCase: true, limit: 5 });
  });
});

describe('what hooks are shown for a path', () => {
  it('a built-in tool: the path field holds the file its resources resolve to, the spelling beside it', () => {
    const resources = [{ kind: 'fs.write' as const, path: '/w/protected/x.txt', written: 'p2/x.txt' }];
    expect(shownInput(mappingFor('write'), { path: 'p2/x.txt', content: 'c' }, targetFromResources(resources, '/w'), resources, '/w')).toEqual({
      toolInput: { file_path: '/w/protected/x.txt', content: 'c' },
      asWritten: { file_path: 'p2/x.txt' },
    });
    expect(shownInput(mappingFor('ls'), {}, targetNow('/w')).asWritten).toBeUndefined();
  });

  it('another tool keeps its arguments as sent, except one a declared file resource resolves elsewhere (a link on the way)', () => {
    const linked = [
      { kind: 'fs.write' as const, path: '/w/protected/x.txt', written: 'p2/x.txt' },
      { kind: 'fs.read' as const, path: '/w/notes.txt', written: 'notes.txt' },
    ];
    const mapping = mappingFor('fs__move_file');
    expect(shownInput(mapping, { source: 'notes.txt', destination: 'p2/x.txt', list: ['p2/x.txt', 'a'] }, targetFromResources(linked, '/w'), linked, '/w')).toEqual({
      toolInput: { source: 'notes.txt', destination: '/w/protected/x.txt', list: ['/w/protected/x.txt', 'a'] },
      asWritten: { destination: 'p2/x.txt', list: ['p2/x.txt', 'a'] },
    });
    const plain = [{ kind: 'fs.read' as const, path: '/w/notes.txt', written: 'notes.txt' }];
    expect(shownInput(mapping, { source: 'notes.txt' }, targetFromResources(plain, '/w'), plain, '/w')).toEqual({ toolInput: { source: 'notes.txt' }, asWritten: undefined });
  });
});

describe('matchers are settings text: matched in linear time (issue 24 §3)', () => {
  it('every generated catastrophic pattern answers on a long tool name, and on short ones as JavaScript does', async () => {
    const { catastrophicPatterns } = await import('@airlock/kernel/testing');
    for (const c of catastrophicPatterns()) {
      const m = compileMatcher(c.pattern);
      expect(m(c.evil), c.pattern).toBe(new RegExp(c.pattern).test(c.twin));
      for (const s of c.short) expect(m(s), `${c.pattern} on ${JSON.stringify(s)}`).toBe(new RegExp(c.pattern).test(s));
    }
  }, scaledMs(60_000));

  it('a matcher with a lookaround or a backreference is refused by name, as a typo is', () => {
    expect(() => compileMatcher('^(?!Read).*')).toThrow(/matcher "\^\(\?!Read\)\.\*" cannot be used: it uses a lookahead "\(\?!", which the linear-time engine .* cannot run\. Write tool names separated by "\|", or fix the pattern\./);
    expect(() => compileMatcher('(Edit)\\1')).toThrow(/backreference/);
  });
});

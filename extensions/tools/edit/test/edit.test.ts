import { chmodSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import extension, { editTool, prepareEditArguments, type EditDetails } from '../src/index.js';

const tempDir = () => makeTempDir('airlock-edit-');

function setup(content: string | Buffer, name = 'f.txt') {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, content);
  return { dir, file, ctx: createTestContext({ cwd: dir }) };
}

async function edit(ctx: ReturnType<typeof createTestContext>, path: string, edits: { oldText: string; newText: string }[]) {
  const result = await editTool.execute('t', { path, edits }, undefined, undefined, ctx);
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', details: result.details as EditDetails };
}

const fails = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the edit to fail');
};

describe('edit: what Pi asserts', () => {
  it('replaces text and returns a unified diff with the first changed line', async () => {
    const { file, ctx } = setup('a\nb\nc\nd\ne\nf\ng\nh\n');
    const { text, details } = await edit(ctx, 'f.txt', [{ oldText: 'e\n', newText: 'E\n' }]);
    expect(text).toBe('Replaced 1 block(s) in f.txt.');
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\nd\nE\nf\ng\nh\n');
    expect(details.firstChangedLine).toBe(5);
    expect(details.fuzzy).toBe(false);
    expect(details.diff).toBe('--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n');
  });

  it('fails when the text is not found and when it occurs more than once', async () => {
    const { file, ctx } = setup('foo\nfoo\nfoo\nbar\n');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'zzz', newText: 'y' }]))).toContain('Could not find the text in f.txt');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'foo', newText: 'y' }]))).toContain('Found 3 occurrences of the text in f.txt');
    expect(readFileSync(file, 'utf8')).toBe('foo\nfoo\nfoo\nbar\n');
  });

  it('applies several disjoint edits, all matched against the original (not incrementally)', async () => {
    const { file, ctx } = setup('one\ntwo\nthree\n' + 'x\n'.repeat(20) + 'four\n');
    const { text, details } = await edit(ctx, 'f.txt', [
      { oldText: 'four', newText: 'FOUR' },
      { oldText: 'one', newText: 'two' },
      { oldText: 'two\n', newText: 'TWO\n' },
    ]);
    expect(text).toBe('Replaced 3 block(s) in f.txt.');
    expect(readFileSync(file, 'utf8')).toBe('two\nTWO\nthree\n' + 'x\n'.repeat(20) + 'FOUR\n');
    expect(details.diff.match(/^@@/gm)).toHaveLength(2);
    expect(details.diff).toContain('@@ -1,5 +1,5 @@\n-one\n+two\n-two\n+TWO\n three\n x\n x\n@@');
    expect(details.diff).toContain('@@ -21,4 +21,4 @@\n x\n x\n x\n-four\n+FOUR\n');
  });

  it('rejects empty edits, empty oldText, overlaps and identical replacements, changing nothing', async () => {
    const { file, ctx } = setup('alpha beta gamma\n');
    expect(await fails(editTool.execute('t', { path: 'f.txt', edits: [] }, undefined, undefined, ctx))).toContain('at least one');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: '', newText: 'x' }]))).toContain('oldText is empty');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'alpha beta', newText: 'x' }, { oldText: 'beta gamma', newText: 'y' }]))).toBe(
      'edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions.',
    );
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'beta', newText: 'beta' }]))).toContain('No changes made to f.txt');
    expect(readFileSync(file, 'utf8')).toBe('alpha beta gamma\n');
  });

  it('applies nothing when one of several edits fails', async () => {
    const { file, ctx } = setup('a\nb\nc\n');
    const message = await fails(edit(ctx, 'f.txt', [{ oldText: 'a', newText: 'A' }, { oldText: 'missing', newText: 'M' }]));
    expect(message).toContain('Could not find edits[1] in f.txt');
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\n');
  });

  it('reports a missing file with close names, a directory, and keeps the mode (atomic rename)', async () => {
    const { dir, file, ctx } = setup('x\n', 'README.md');
    expect(await fails(edit(ctx, 'readme.md', [{ oldText: 'x', newText: 'y' }]))).toContain('Did you mean "README.md"');
    mkdirSync(join(dir, 'sub'));
    expect(await fails(edit(ctx, 'sub', [{ oldText: 'x', newText: 'y' }]))).toContain('is a directory');
    chmodSync(file, 0o751);
    const inode = statSync(file).ino;
    await edit(ctx, 'README.md', [{ oldText: 'x', newText: 'y' }]);
    expect(statSync(file).mode & 0o777).toBe(0o751);
    expect(statSync(file).ino).not.toBe(inode);
  });

  it('refuses non-UTF-8 content', async () => {
    const { ctx } = setup(Buffer.from([0x61, 0xff, 0xfe, 0x0a]));
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'a', newText: 'b' }]))).toContain('not valid UTF-8');
  });
});

describe('edit: fuzzy fallback', () => {
  it('tolerates trailing whitespace, smart quotes, dashes, NBSP and NFKC forms, and reports it', async () => {
    const cases: [string, string, string, string][] = [
      ['trailing-whitespace', 'let a = 1;   \nlet b = 2;\n', 'let a = 1;\nlet b = 2;', 'let a = 1;\nlet b = 3;\n'],
      ['quotes', 'say(\u201chi\u201d);\n', 'say("hi");', 'say("hello");\n'],
      ['dashes', 'a \u2014 b\n', 'a - b', 'a - c\n'],
      ['spaces', 'x\u00a0= 1\n', 'x = 1', 'x = 2\n'],
      ['nfkc', 'ｆｕｌｌ width\n', 'full width', 'half width\n'],
    ];
    for (const [kind, content, oldText, expected] of cases) {
      const { file, ctx } = setup(content);
      const { details, text } = await edit(ctx, 'f.txt', [{ oldText, newText: expected.trimEnd() }]);
      expect(readFileSync(file, 'utf8'), kind).toBe(expected);
      expect(details.fuzzy).toBe(true);
      expect(details.normalisations, kind).toContain(kind);
      expect(text).toContain('matched only after normalising');
    }
  });

  it('changes only the matched lines: other lines keep their smart quotes and trailing spaces byte for byte', async () => {
    const content = 'keep \u201cthis\u201d  \nfix \u2018me\u2019\nkeep \u2018that\u2019 \u2014 too\u00a0\n';
    const { file, ctx } = setup(content);
    const { details } = await edit(ctx, 'f.txt', [{ oldText: "fix 'me'", newText: 'fixed' }]);
    expect(readFileSync(file, 'utf8')).toBe('keep \u201cthis\u201d  \nfixed\nkeep \u2018that\u2019 \u2014 too\u00a0\n');
    expect(details.fuzzy).toBe(true);
    expect(details.firstChangedLine).toBe(2);
  });

  it('keeps the unmatched part of a partially matched line as it was', async () => {
    const { file, ctx } = setup('const s = \u201ca\u201d; // \u201cnote\u201d\n');
    await edit(ctx, 'f.txt', [{ oldText: 'const s = "a";', newText: 'const s = "b";' }]);
    expect(readFileSync(file, 'utf8')).toBe('const s = "b"; // \u201cnote\u201d\n');
  });

  it('prefers an exact match, and counts uniqueness in exact space when one exists', async () => {
    const { file, ctx } = setup('say("hi")\nsay(\u201chi\u201d)\n');
    const { details } = await edit(ctx, 'f.txt', [{ oldText: 'say("hi")', newText: 'X' }]);
    expect(details.fuzzy).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('X\nsay(\u201chi\u201d)\n');
  });

  it('detects duplicates after normalisation and still fails when absent', async () => {
    const { ctx } = setup('a \u2014 b\na \u2013 b\n');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'a - b', newText: 'c' }]))).toContain('Found 2 occurrences');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'a + b', newText: 'c' }]))).toContain('Could not find');
  });

  it('matches across lines in a CRLF file when only a middle line differs (smart quotes), keeping CRLF and other lines', async () => {
    const content = 'keep \u201cq\u201d\r\nfn(a) {\r\n  say(\u201chi\u201d);  \r\n}\r\ntail \u2014 x\r\n';
    const { file, ctx } = setup(content);
    const { details } = await edit(ctx, 'f.txt', [{ oldText: 'fn(a) {\n  say("hi");\n}', newText: 'fn(b) {\n  say("yo");\n}' }]);
    expect(readFileSync(file, 'utf8')).toBe('keep \u201cq\u201d\r\nfn(b) {\r\n  say("yo");\r\n}\r\ntail \u2014 x\r\n');
    expect(details.normalisations).toEqual(expect.arrayContaining(['quotes', 'trailing-whitespace']));
    expect(details.firstChangedLine).toBe(2);
  });

  it('shows the closest candidate region with line numbers when nothing matches', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `filler line ${i}`);
    lines[24] = 'function computeTotal(items) {';
    lines[25] = '  return items.reduce((a, b) => a + b, 0);';
    const { ctx } = setup(lines.join('\n') + '\n');
    const message = await fails(edit(ctx, 'f.txt', [{ oldText: 'function computeTotal(list) {\n  return list.reduce((a, b) => a + b, 0);', newText: 'x' }]));
    expect(message).toContain('The closest match is lines 25-26:');
    expect(message).toContain('25| function computeTotal(items) {');
    expect(message).toContain('26|   return items.reduce');
    expect(message).toContain('read it again (offset=25)');
  });
});

describe('edit: line endings and BOM', () => {
  it('matches an LF oldText in a CRLF file and writes CRLF for the new lines', async () => {
    const { file, ctx } = setup('one\r\ntwo\r\nthree\r\n');
    const { details } = await edit(ctx, 'f.txt', [{ oldText: 'one\ntwo\n', newText: 'uno\ndos\n' }]);
    expect(readFileSync(file, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
    expect(details.diff).toContain('-one\n-two\n+uno\n+dos\n three\n');
  });

  it('keeps a mixed-ending file mixed: only the changed region takes a line ending', async () => {
    const { file, ctx } = setup('a\r\nb\nc\r\nd\n');
    await edit(ctx, 'f.txt', [{ oldText: 'c\nd', newText: 'C\nD' }]);
    expect(readFileSync(file, 'utf8')).toBe('a\r\nb\nC\r\nD\n');
  });

  it('keeps LF files LF, preserves a BOM (also with CRLF and several edits)', async () => {
    const lf = setup('\uFEFFx\ny\n');
    await edit(lf.ctx, 'f.txt', [{ oldText: 'x', newText: 'X' }]);
    expect(readFileSync(lf.file)).toEqual(Buffer.from('\uFEFFX\ny\n'));
    const crlf = setup('\uFEFFa\r\nb\r\nc\r\n');
    await edit(crlf.ctx, 'f.txt', [{ oldText: 'a\nb', newText: 'A\nB' }, { oldText: 'c', newText: 'C' }]);
    expect(readFileSync(crlf.file)).toEqual(Buffer.from('\uFEFFA\r\nB\r\nC\r\n'));
  });

  it('detects duplicates across CRLF and LF lines', async () => {
    const { ctx } = setup('a\r\nb\na\nb\n');
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'a\nb', newText: 'x' }]))).toContain('Found 2 occurrences');
  });
});

describe('edit: legacy input shapes (prepareArguments)', () => {
  it('folds a top-level oldText/newText into edits, after existing ones', () => {
    expect(prepareEditArguments({ path: 'f', oldText: 'a', newText: 'b' })).toEqual({ path: 'f', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(prepareEditArguments({ path: 'f', edits: [{ oldText: 'x', newText: 'y' }], oldText: 'a', newText: 'b' })).toEqual({
      path: 'f',
      edits: [
        { oldText: 'x', newText: 'y' },
        { oldText: 'a', newText: 'b' },
      ],
    });
  });

  it('parses edits sent as a JSON string (even with raw control characters) and string items', () => {
    expect(prepareEditArguments({ path: 'f', edits: '[{"oldText":"a","newText":"b"}]' })).toEqual({ path: 'f', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(prepareEditArguments({ path: 'f', edits: '[{"oldText":"a\n\tb","newText":"c"}]' })).toEqual({ path: 'f', edits: [{ oldText: 'a\n\tb', newText: 'c' }] });
    expect(prepareEditArguments({ path: 'f', edits: ['{"oldText":"a","newText":"b"}', { oldText: 'c', newText: 'd' }] })).toEqual({
      path: 'f',
      edits: [
        { oldText: 'a', newText: 'b' },
        { oldText: 'c', newText: 'd' },
      ],
    });
  });

  it('returns valid input by identity and passes non-objects through', () => {
    const valid = { path: 'f', edits: [{ oldText: 'a', newText: 'b' }] };
    expect(prepareEditArguments(valid)).toBe(valid);
    expect(prepareEditArguments('text')).toBe('text');
    expect(prepareEditArguments(null)).toBe(null);
    expect(prepareEditArguments([1])).toEqual([1]);
  });

  it('runs prepared legacy arguments through the kernel, and rejects empty edits as invalid', async () => {
    const h = createToolHarness(editTool);
    const dir = tempDir();
    writeFileSync(join(dir, 'g.txt'), 'hello world\n');
    const legacy = await h.call({ path: join(dir, 'g.txt'), oldText: 'world', newText: 'there' });
    expect(legacy.outcome).toBe('ok');
    expect(readFileSync(join(dir, 'g.txt'), 'utf8')).toBe('hello there\n');
    const asString = await h.call({ path: join(dir, 'g.txt'), edits: JSON.stringify([{ oldText: 'there', newText: 'again' }]) });
    expect(asString.outcome).toBe('ok');
    expect(readFileSync(join(dir, 'g.txt'), 'utf8')).toBe('hello again\n');
    const empty = await h.call({ path: join(dir, 'g.txt'), edits: [] });
    expect(empty.outcome).toBe('invalid');
  });
});

describe('edit: staleness, resources, extension', () => {
  it('refuses a file that changed on disk since it was last seen, and notes the new stamp after an edit', async () => {
    const { file, ctx } = setup('v1\n');
    await edit(ctx, 'f.txt', [{ oldText: 'v1', newText: 'v2' }]);
    const stamp = ctx.files.get(file);
    expect(stamp).toEqual({ mtimeMs: statSync(file).mtimeMs, size: 3 });
    await edit(ctx, 'f.txt', [{ oldText: 'v2', newText: 'v3' }]);
    writeFileSync(file, 'v3 changed elsewhere\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await fails(edit(ctx, 'f.txt', [{ oldText: 'v3', newText: 'v4' }]))).toContain('changed on disk since you last read or edited it');
    expect(readFileSync(file, 'utf8')).toBe('v3 changed elsewhere\n');
  });

  it('registers edit with replay never and an fs.write resource on the real path', () => {
    const registered: unknown[] = [];
    void extension.setup({ registerTool: (t: unknown) => void registered.push(t) } as never);
    expect(registered).toEqual([editTool]);
    expect(editTool.replay).toBe('never');
    const { dir, ctx } = setup('x');
    expect(editTool.resources?.({ path: '@f.txt', edits: [{ oldText: 'x', newText: 'y' }] }, ctx)).toEqual([{ kind: 'fs.write', path: join(dir, 'f.txt'), written: '@f.txt' }]);
  });
});

describe('edit: concurrency', () => {
  it('1000 concurrent edits on one file through one kernel: nothing lost', async () => {
    const h = createToolHarness(editTool);
    const dir = tempDir();
    const file = join(dir, 'many.txt');
    writeFileSync(file, Array.from({ length: 1000 }, (_, i) => `<m${i}>=old`).join('\n') + '\n');
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => h.call({ path: file, edits: [{ oldText: `<m${i}>=old`, newText: `<m${i}>=new` }] })),
    );
    expect(results.filter((r) => r.outcome !== 'ok').map((r) => h.text(r))).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(Array.from({ length: 1000 }, (_, i) => `<m${i}>=new`).join('\n') + '\n');
  }, scaledMs(60_000));
});

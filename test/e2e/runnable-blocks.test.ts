import { describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks } from './markdown-links.js';
import { runnableBlocks } from './runnable-blocks.js';

describe('runnableBlocks', () => {
  it('takes only ```sh runnable blocks, in order, as written', () => {
    const md = ['# x', '```sh runnable', 'echo one', 'echo two', '```', '```sh', 'not run', '```', '~~~sh runnable', 'echo three', '~~~'].join('\n');
    expect(runnableBlocks(md)).toEqual(['echo one\necho two\n', 'echo three\n']);
  });

  it('does not read a marker quoted inside another block', () => {
    const md = ['````md', '```sh runnable', 'rm -rf /', '```', '````'].join('\n');
    expect(runnableBlocks(md)).toEqual([]);
  });

  it('refuses a misspelt or unclosed marker instead of skipping the block', () => {
    expect(() => runnableBlocks('```bash runnable\necho\n```')).toThrow(/write ```sh runnable/);
    expect(() => runnableBlocks('```sh  runnable extra\necho\n```')).toThrow(/only ```sh runnable blocks run/);
    expect(() => runnableBlocks('```sh runnable\necho\n')).toThrow(/not closed/);
  });
});

describe('markdown links', () => {
  it('makes the anchors GitHub makes', () => {
    expect([...headingAnchors('## `airlock policy`\n## Quick start (fresh machine: Node 20.19+ and npm)\n## A\n## A\n```\n## not a heading\n```')]).toEqual([
      'airlock-policy',
      'quick-start-fresh-machine-node-2019-and-npm',
      'a',
      'a-1',
    ]);
  });

  it('finds relative links outside code', () => {
    expect(relativeLinks('[a](b.md#c) [x](https://y) [h](#here) `[no](z.md)`\n```\n[no](q.md)\n```\n[d](../d/)')).toEqual([
      { target: 'b.md', anchor: 'c', line: 1 },
      { target: '../d/', anchor: undefined, line: 5 },
    ]);
  });
});

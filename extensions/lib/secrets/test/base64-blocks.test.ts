import { describe, expect, it } from 'vitest';
import { base64Blocks } from '../src/base64-blocks.js';

/** Each block as the text of its lines. */
function blocks(text: string): string[][] {
  return base64Blocks(text).map((b) => b.map((l) => text.slice(l.start, l.end)));
}

const LINE = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2';

describe('base64Blocks: the runs the key-body and encoded-secret finders look at', () => {
  it('groups a wrapped block, its short last line included, and leaves words alone', () => {
    const text = `some words here\n${LINE}\n${LINE}\nw0EAAQ==\nmore words\n`;
    expect(blocks(text)).toEqual([[LINE, LINE, 'w0EAAQ==']]);
  });

  it('counts padding toward the length: 14 characters and == make a run', () => {
    expect(blocks('x +0A+a/00/a/+aa== y')).toEqual([['+0A+a/00/a/+aa==']]);
    expect(blocks('x +0A+a/00/a/+a= y')).toEqual([]);
  });

  it('splits lines at JSON escapes, without the n of an escaped newline', () => {
    const json = JSON.stringify({ key: `-----BEGIN KEY-----\n${LINE}\n${LINE}\n-----END KEY-----\n` });
    expect(blocks(json)).toEqual([[LINE, LINE]]);
  });

  it('reads through indentation and grep -n prefixes, and a run inside a line is a block of its own', () => {
    const grep = `key.pem:2:${LINE}\nkey.pem-3-${LINE}\n`;
    expect(blocks(grep)).toEqual([[LINE, LINE]]);
    const inline = `const a = "${LINE}"; const b = "${LINE}";\n`;
    expect(base64Blocks(inline).map((b) => [b.length, b[0]!.alone])).toEqual([[1, false], [1, false]]);
  });
});

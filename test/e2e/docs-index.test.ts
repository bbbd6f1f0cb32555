import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './harness.js';
import { headingAnchors, relativeLinks } from './markdown-links.js';
import { markdownFiles, runnableBlocks } from './runnable-blocks.js';

const examples = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const pages = [...markdownFiles(ROOT), ...examples.map((e) => join(ROOT, 'examples', e, 'README.md')).filter(existsSync)];

describe('the docs hold together', () => {
  it('every relative link in the README, docs/ and the examples leads to a file, and an anchor to a heading there', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of relativeLinks(readFileSync(page, 'utf8'))) {
        const target = resolve(dirname(page), link.target);
        const where = `${relative(ROOT, page)}:${link.line}: ${link.target}${link.anchor ? `#${link.anchor}` : ''}`;
        if (!existsSync(target)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (link.anchor && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(link.anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/README.md links every page under docs/, and the README links docs/README.md', () => {
    const index = join(ROOT, 'docs', 'README.md');
    const linked = new Set(relativeLinks(readFileSync(index, 'utf8')).map((l) => resolve(dirname(index), l.target)));
    const unlinked = markdownFiles(ROOT)
      .filter((f) => f.startsWith(join(ROOT, 'docs')) && f !== index && !linked.has(f))
      .map((f) => relative(ROOT, f));
    expect(unlinked).toEqual([]);
    expect(relativeLinks(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((l) => l.target)).toContain('docs/README.md');
  });

  it('every example has a README, a test that runs in CI, and a row in the index', () => {
    const e2e = readdirSync(join(ROOT, 'test', 'e2e'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(ROOT, 'test', 'e2e', f), 'utf8'))
      .join('\n');
    const index = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
    const missing: string[] = [];
    for (const name of examples) {
      if (!existsSync(join(ROOT, 'examples', name, 'README.md'))) missing.push(`${name}: no README.md`);
      const own = existsSync(join(ROOT, 'examples', name, 'test')) && readdirSync(join(ROOT, 'examples', name, 'test')).some((f) => f.endsWith('.test.ts'));
      if (!own && !e2e.includes(`examples/${name}`)) missing.push(`${name}: no test (examples/${name}/test/*.test.ts, or a test/e2e file that runs examples/${name})`);
      if (!index.includes(`../examples/${name}/README.md`)) missing.push(`${name}: not in docs/README.md`);
    }
    expect(missing).toEqual([]);
    expect(examples).toEqual(expect.arrayContaining(['hello-tool', 'deny-rm-rf', 'compose-agent', 'tour']));
  });

  it('marks runnable blocks only with ```sh runnable (a misspelt marker is an error, not a skipped block)', () => {
    for (const page of pages) expect(() => runnableBlocks(readFileSync(page, 'utf8')), relative(ROOT, page)).not.toThrow();
  });
});

import { linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolHarness, makeTempDir } from '@airlock/kernel/testing';
import { writeTool } from '../src/index.js';
import { editTool } from '../../edit/src/index.js';

/**
 * Issue 19 §5: `printf … >> node_modules/pkg/index.js` changed a pnpm store file outside the
 * workspace through a hard link. The in-process tools replace a file by rename, so the store's
 * copy (the other link) keeps its bytes: verified here for write and edit.
 */
describe('write and edit break hard links instead of writing through them', () => {
  function store() {
    const base = makeTempDir('airlock-hardlink-');
    const outside = join(base, 'store', 'index.js');
    const workspace = join(base, 'ws');
    mkdirSync(join(base, 'store'));
    mkdirSync(join(workspace, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(outside, 'module.exports = 1;\n');
    const inside = join(workspace, 'node_modules', 'pkg', 'index.js');
    linkSync(outside, inside);
    expect(statSync(inside).nlink).toBe(2);
    return { outside, inside, workspace };
  }

  it('write', async () => {
    const { outside, inside, workspace } = store();
    const h = createToolHarness(writeTool, { cwd: workspace });
    expect((await h.call({ path: 'node_modules/pkg/index.js', content: 'planted();\n' })).outcome).toBe('ok');
    expect(readFileSync(inside, 'utf8')).toBe('planted();\n');
    expect(readFileSync(outside, 'utf8')).toBe('module.exports = 1;\n');
    expect(statSync(outside).nlink).toBe(1);
  });

  it('edit', async () => {
    const { outside, inside, workspace } = store();
    const h = createToolHarness(editTool, { cwd: workspace });
    const read = await h.call({ path: 'node_modules/pkg/index.js', edits: [{ oldText: '= 1', newText: '= 2; planted()' }] });
    expect(read.outcome).toBe('ok');
    expect(readFileSync(inside, 'utf8')).toBe('module.exports = 2; planted();\n');
    expect(readFileSync(outside, 'utf8')).toBe('module.exports = 1;\n');
  });
});

import { mkdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { canNameDescriptors } from '@airlock/tool-common';
import { WholeFileReader } from '../src/read-whole.js';

/**
 * Issue 19 §4 for grep's own walk (the Node engine): the walk lists folder d, and before the file
 * is opened d is swapped for a link to a folder outside holding a file of the same name. The
 * final name is never followed (O_NOFOLLOW); the folder on the way is caught by the descriptor's
 * name, which only Linux gives. The swap is done by hand at that exact point: in a live race the
 * window between listing and opening is a few microseconds. (rg, a child process, is the OS
 * sandbox's to confine.)
 */
describe.runIf(canNameDescriptors())('grep (node engine): a folder swapped between the walk and the open', () => {
  it('the file outside is not read; it is reported unreadable (ECHANGED) instead', () => {
    const base = realpathSync(makeTempDir('airlock-grep-race-'));
    const ws = join(base, 'ws');
    mkdirSync(join(ws, 'd'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(ws, 'd', 'b.txt'), 'needle: ordinary\n');
    writeFileSync(join(base, 'outside', 'b.txt'), 'needle: hunter2 from outside\n');
    const reader = new WholeFileReader();
    const walked = join(ws, 'd', 'b.txt');
    expect(String(reader.read(walked, walked))).toBe('needle: ordinary\n');
    renameSync(join(ws, 'd'), join(ws, 'd.moved'));
    symlinkSync(join(base, 'outside'), join(ws, 'd'));
    expect(reader.read(walked, walked)).toBe('ECHANGED');
  });
});

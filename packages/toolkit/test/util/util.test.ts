import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as kernel from '../../src/index.js';
import * as util from '../../src/util/index.js';

describe('@airlock/toolkit/util: one home for each helper', () => {
  it('re-exports the functions the kernel itself runs (not copies), and the main entry keeps them', () => {
    for (const name of ['formatSize', 'appendNotice', 'headNotice', 'tailNotice', 'truncationNotice', 'lineTooLongNotice', 'moreLinesNotice', 'sniffImageMime', 'sniffConvertibleMime', 'sniffBase64ImageMime', 'closestNames', 'countLines'] as const) {
      expect(util[name], name).toBe(kernel[name]);
    }
  });
});

describe('errno wording', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('words the codes a real file system gives, the same for every tool', async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-errno-'));
    const failure = async (path: string) => readFile(path).then(() => undefined, (error: unknown) => error);
    const missing = await failure(join(dir, 'nope.txt'));
    expect(util.errnoCode(missing)).toBe('ENOENT');
    expect(util.errnoWords(missing)).toBe('there is no such file or folder');
    const tooLong = await failure(join(dir, 'n'.repeat(300)));
    expect(util.errnoWords(tooLong)).toBe('the name or path is too long');
    const isFolder = await failure(dir);
    expect(util.errnoWords(isFolder)).toBe('it is a folder, not a file');
    expect(util.errnoWords('EROFS')).toBe('the file system is read-only');
    expect(util.errnoWords('EDQUOT')).toBe(util.errnoWords('ENOSPC'));
  });

  it('says nothing for what is not a known errno code, so the caller shows the error itself', () => {
    expect(util.errnoWords('EWHATEVER')).toBeUndefined();
    expect(util.errnoWords('toString')).toBeUndefined();
    expect(util.errnoWords(new Error('plain'))).toBeUndefined();
    expect(util.errnoCode({ code: 13 })).toBeUndefined();
    expect(util.errnoCode(null)).toBeUndefined();
  });

  it('words anything thrown, never as an empty string or [object Object]', () => {
    expect(util.errorMessage(new Error('disk full'))).toBe('disk full');
    expect(util.errorMessage(new TypeError(''))).toBe('TypeError');
    expect(util.errorMessage({ code: 'EX', detail: 1 })).toBe('{"code":"EX","detail":1}');
    expect(util.errorMessage('plain words')).toBe('plain words');
  });

  it('treats EACCES and EPERM alike as permission denied', () => {
    expect(util.isPermissionDenied('EACCES')).toBe(true);
    expect(util.isPermissionDenied(Object.assign(new Error('x'), { code: 'EPERM' }))).toBe(true);
    expect(util.isPermissionDenied('ENOENT')).toBe(false);
    expect(util.isPermissionDenied(undefined)).toBe(false);
  });
});

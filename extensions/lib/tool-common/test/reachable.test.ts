import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { whyNobodyCannotReach } from './support/reachable.js';

describe('whyNobodyCannotReach (permission tests skip instead of failing for the wrong reason)', () => {
  it('names the first folder on the way that others may not enter', () => {
    const dir = makeTempDir('airlock-reach-');
    mkdirSync(join(dir, 'private/open'), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'private'), 0o700);
    chmodSync(join(dir, 'private/open'), 0o755);
    expect(whyNobodyCannotReach(join(dir, 'private/open'))).toBe(`${join(dir, 'private')} has mode 700: others may not enter it`);
  });

  it('says nothing when every folder on the way lets others in', () => {
    const dir = makeTempDir('airlock-reach-');
    mkdirSync(join(dir, 'a/b'), { recursive: true });
    chmodSync(dir, 0o755);
    // The temp folder's own parents are the machine's: only test what is below it when they are open.
    if (whyNobodyCannotReach(dir) !== undefined) return;
    expect(whyNobodyCannotReach(join(dir, 'a/b'))).toBeUndefined();
  });
});

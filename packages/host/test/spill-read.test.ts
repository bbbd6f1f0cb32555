import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headlessSessions } from './headless-session.js';

/**
 * Issue 11: a spill file named in a result must be readable when the model reads it. Inside a
 * session with nobody to ask, path-policy lets tools read this user's spill files (they lie
 * outside the workspace), but only read them, and a link planted there is judged by its target.
 */

const SECRET = 'PRIVATE-KEY-BYTES-41c9';

const sessions = headlessSessions('airlock-spill-read-');
const session = () => sessions({ allow: ['bash(seq *)', 'bash(cat *)'], files: { 'home/.ssh/id_ed25519': `${SECRET}\n` } });

describe('the spill file a result names can be read in the same session', () => {
  it('read and bash cat open it without an approval; read continues it with an offset', async () => {
    const s = await session();
    const out = await s.call('bash', { command: 'seq 1 100000' });
    const path = /Full output: (\S+)\]$/.exec(out.text)?.[1];
    expect(path, out.text).toBeDefined();
    expect(path!.startsWith(join(s.base, 'spill'))).toBe(true);

    const head = await s.call('read', { path: path! });
    expect(head.outcome).toBe('ok');
    expect(head.text.split('\n').slice(0, 3)).toEqual(['1', '2', '3']);
    expect(head.text).toContain('[Showing lines 1-2000 of 100000. Use offset=2001 to continue.]');
    const next = await s.call('read', { path: path!, offset: 2001, limit: 2 });
    expect(next.text.split('\n').slice(0, 2)).toEqual(['2001', '2002']);

    const cat = await s.call('bash', { command: `cat ${path!}` });
    expect(cat.outcome).toBe('ok');
    expect(cat.text).toContain('99999\n100000');
  });

  it('writing into the spill folder stays denied', async () => {
    const s = await session();
    const out = await s.call('bash', { command: 'seq 1 100000' });
    const path = /Full output: (\S+)\]$/.exec(out.text)![1]!;
    const before = readFileSync(path, 'utf8');
    const write = await s.call('write', { path, content: 'forged output' });
    expect(write.outcome).toBe('denied');
    expect(readFileSync(path, 'utf8')).toBe(before);
    const beside = await s.call('write', { path: join(dirname(path), 'planted.txt'), content: 'x' });
    expect(beside.outcome).toBe('denied');
  });

  it('a link planted in a spill session folder is judged by its target: a secret stays closed', async () => {
    const s = await session();
    const out = await s.call('bash', { command: 'seq 1 100000' });
    const folder = dirname(/Full output: (\S+)\]$/.exec(out.text)![1]!);
    const link = join(folder, 'innocent.log');
    symlinkSync(join(s.home, '.ssh', 'id_ed25519'), link);
    const read = await s.call('read', { path: link });
    expect(read.outcome).toBe('denied');
    expect(read.text).not.toContain(SECRET);
    const cat = await s.call('bash', { command: `cat ${link}` });
    expect(cat.text).not.toContain(SECRET);
    // A plain file outside the workspace, linked the same way, is still asked about (and so refused here).
    writeFileSync(join(s.base, 'elsewhere.txt'), 'not a spill\n');
    symlinkSync(join(s.base, 'elsewhere.txt'), join(folder, 'other.log'));
    expect((await s.call('read', { path: join(folder, 'other.log') })).outcome).toBe('denied');
  });
});

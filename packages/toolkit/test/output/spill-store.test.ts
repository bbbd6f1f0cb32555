import { chmod, chown, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpillStore, createSpillStore, isValidSessionId } from '../../src/output/spill-store.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'airlock-spill-test-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const exists = (path: string): Promise<boolean> => stat(path).then(
  () => true,
  () => false,
);
const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;
const DAY = 24 * 60 * 60 * 1000;

/** Set a folder's mtime and that of everything directly in it to `ageMs` ago. */
async function age(folder: string, ageMs: number): Promise<void> {
  const when = new Date(Date.now() - ageMs);
  for (const name of await readdir(folder)) await utimes(join(folder, name), when, when);
  await utimes(folder, when, when);
}

/** A real session folder (made by a SpillStore, with one spilled file) last modified `ageMs` ago. */
async function oldSession(name: string, ageMs: number): Promise<string> {
  const past = createSpillStore({ root, sessionId: name, retentionMs: Number.MAX_SAFE_INTEGER });
  await past.spill('old');
  await past.idle();
  await age(past.dir, ageMs);
  return past.dir;
}

/** A folder Airlock did not make, with a file and a nested folder, last modified `ageMs` ago. */
async function foreignFolder(path: string, ageMs: number): Promise<Map<string, string>> {
  await mkdir(join(path, 'nested'), { recursive: true });
  const files = new Map([
    [join(path, 'keep.txt'), 'precious'],
    [join(path, 'nested', 'deep.txt'), 'also precious'],
  ]);
  for (const [file, text] of files) await writeFile(file, text);
  await age(join(path, 'nested'), ageMs);
  await age(path, ageMs);
  return files;
}

async function expectBytes(files: Map<string, string>): Promise<void> {
  for (const [file, text] of files) expect(await readFile(file, 'utf8')).toBe(text);
}

describe('SpillStore.spill', () => {
  it('writes a private file in a private per-session folder', async () => {
    const store = createSpillStore({ root, sessionId: 'sess-1' });
    const info = await store.spill('full output\n', { name: 'bash', ext: 'log' });
    expect(info).toEqual({ path: info.path, bytes: 12, offeredBytes: 12, capped: false });
    expect(info.path.startsWith(join(root, 'sess-1'))).toBe(true);
    expect(basename(info.path)).toMatch(/^\d{8}T\d{9}Z-bash-[0-9a-f]{8}\.log$/);
    expect(await readFile(info.path, 'utf8')).toBe('full output\n');
    expect(await modeOf(info.path)).toBe(0o600);
    expect(await modeOf(store.dir)).toBe(0o700);
  });

  it('defaults the root to the temp dir and touches nothing before the first spill', async () => {
    expect(createSpillStore({ sessionId: 'x' }).dir).toBe(join(tmpdir(), `airlock-spill-${process.getuid!()}`, 'x'));
    const store = createSpillStore({ root: join(root, 'lazy'), sessionId: 's' });
    expect(await exists(store.root)).toBe(false);
  });

  it('makes labels safe for file names', async () => {
    const store = createSpillStore({ root, sessionId: 's' });
    const info = await store.spill(Uint8Array.of(1, 2), { name: 'mcp:git/diff ../x', ext: '.t/x' });
    expect(basename(info.path)).toMatch(/^\d{8}T\d{9}Z-mcp_git_diff_x-[0-9a-f]{8}\.tx$/);
    expect((await store.spill('')).path).toMatch(/-output-[0-9a-f]{8}\.txt$/);
  });

  it('evicts the oldest files of the session when the budget would be exceeded', async () => {
    const store = createSpillStore({ root, sessionId: 's', budgetBytes: 100 });
    const first = await store.spill('a'.repeat(40));
    const second = await store.spill('b'.repeat(40));
    const third = await store.spill('c'.repeat(40));
    await store.idle();
    expect(await exists(first.path)).toBe(false);
    expect(await exists(second.path)).toBe(true);
    expect(await exists(third.path)).toBe(true);
    expect(store.usedBytes).toBe(80);
    expect(third.capped).toBe(false);
  });

  it('caps a spill larger than the whole budget, keeping its beginning on a character boundary', async () => {
    const store = createSpillStore({ root, sessionId: 's', budgetBytes: 101 });
    const earlier = await store.spill('x'.repeat(50));
    const info = await store.spill('é'.repeat(60)); // 120 bytes; 101 would split an "é"
    await store.idle();
    expect(info).toMatchObject({ bytes: 100, offeredBytes: 120, capped: true });
    expect(await readFile(info.path, 'utf8')).toBe('é'.repeat(50));
    expect(await exists(earlier.path)).toBe(false);
    expect(store.usedBytes).toBe(100);
  });

  it('counts files left by an earlier run of the same session against the budget', async () => {
    const before = createSpillStore({ root, sessionId: 's', budgetBytes: 100 });
    const old = await before.spill('o'.repeat(70));
    const again = createSpillStore({ root, sessionId: 's', budgetBytes: 100 });
    const fresh = await again.spill('n'.repeat(50));
    await again.idle();
    expect(await exists(old.path)).toBe(false);
    expect(await exists(fresh.path)).toBe(true);
    expect(again.usedBytes).toBe(50);
  });

  it('rejects unsafe session ids with a clear error', () => {
    for (const bad of ['', '..', '../x', 'a/b', 'a\\b', '.hidden', 'a..b', 'x'.repeat(129), 'a b']) {
      expect(isValidSessionId(bad)).toBe(false);
      expect(() => createSpillStore({ root, sessionId: bad })).toThrow(/Invalid spill session id .*no path separators/);
    }
    expect(isValidSessionId('2025-01-02_abc.1')).toBe(true);
  });

  it('rejects nonsense budgets', () => {
    expect(() => createSpillStore({ root, sessionId: 's', budgetBytes: 0 })).toThrow(/budgetBytes must be a whole number/);
    expect(() => createSpillStore({ root, sessionId: 's', retentionMs: -1 })).toThrow(/retentionMs must be 0 or more/);
  });

  it('names the folder and the setting when the root cannot be created', async () => {
    const blocker = join(root, 'a-file');
    await writeFile(blocker, '');
    const store = createSpillStore({ root: join(blocker, 'spill'), sessionId: 's' });
    const failure = store.spill('data');
    await expect(failure).rejects.toThrow(/Cannot create the spill folder .*a-file.*spill.*limits\.spillDir/);
  });
});

describe('SpillStore cleanup', () => {
  it('removes other sessions untouched for longer than the retention, lazily on the first spill', async () => {
    const stale = await oldSession('stale', 8 * DAY);
    const recent = await oldSession('recent', 1 * DAY);
    const stillWriting = await oldSession('still-writing', 8 * DAY);
    await writeFile(join(stillWriting, 'new.txt'), 'fresh'); // newest entry is recent
    await utimes(stillWriting, new Date(Date.now() - 8 * DAY), new Date(Date.now() - 8 * DAY));
    const notASession = join(root, '.not-a-session');
    await foreignFolder(notASession, 30 * DAY);
    await writeFile(join(root, 'stray-file'), '');

    const store = createSpillStore({ root, sessionId: 'me' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await exists(stale)).toBe(true); // construction alone cleans nothing

    await store.spill('x');
    await store.idle();
    expect(await exists(stale)).toBe(false);
    expect(await exists(recent)).toBe(true);
    expect(await exists(stillWriting)).toBe(true);
    expect(await exists(notASession)).toBe(true);
    expect(await exists(join(root, 'stray-file'))).toBe(true);
    expect(await exists(store.dir)).toBe(true);
  });

  it('does not look at every session after every spill: again once the session wrote an eighth of the total budget', async () => {
    const store = createSpillStore({ root, sessionId: 'me', totalBudgetBytes: 80 });
    await store.spill('x'); // the first use runs the pass
    await store.idle();
    // A session that went stale since: small spills right after do not walk the root again...
    const stale = await oldSession('stale', 8 * DAY);
    for (let i = 0; i < 3; i++) await store.spill('ab'); // 1 + 6 + 2 bytes since the pass: under 10
    const file = store.open({ name: 'stream' });
    file.write('cd');
    await file.close();
    await store.idle();
    expect(await exists(stale)).toBe(true);
    // ...until what it wrote since the last pass reaches 80 / 8 bytes.
    await store.spill('0123456789');
    await store.idle();
    expect(await exists(stale)).toBe(false);
  });

  it('never removes its own session and honours an explicit age', async () => {
    const store = createSpillStore({ root, sessionId: 'me' });
    await store.spill('x');
    await store.idle();
    const when = new Date(Date.now() - 30 * DAY);
    await utimes(store.dir, when, when);
    const other = await oldSession('other', 2 * DAY);
    const result = await store.cleanup({ olderThanMs: DAY });
    expect(result).toEqual({ removed: [other], failed: [] });
    expect(await exists(store.dir)).toBe(true);
  });

  it('never removes a folder it did not make, however old, even when the root is a shared parent', async () => {
    // The attack: limits.spillDir ".." made cleanup delete every old sibling of the project.
    const sibling = join(root, 'sibling-project');
    const siblingFiles = await foreignFolder(sibling, 30 * DAY);
    // A copied marker naming another session does not make a folder a session either.
    const copied = join(root, 'copied');
    const copiedFiles = await foreignFolder(copied, 30 * DAY);
    await writeFile(join(copied, '.airlock-spill-session'), 'airlock spill session other\n');
    copiedFiles.set(join(copied, '.airlock-spill-session'), 'airlock spill session other\n');
    await age(copied, 30 * DAY);

    const store = createSpillStore({ root, sessionId: 'me' });
    await store.spill('x');
    await store.idle();
    const result = await store.cleanup({ olderThanMs: 0 });
    expect(result.removed).toEqual([]);
    await expectBytes(siblingFiles);
    await expectBytes(copiedFiles);
  });

  it('does not follow a symlink named like a session, nor a session marker that is a link', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'airlock-spill-outside-'));
    try {
      const outsideFiles = await foreignFolder(outside, 30 * DAY);
      await symlink(outside, join(root, 'linked'));
      const real = await oldSession('real', 30 * DAY);
      // Replace the real marker by a link to a file with the right text: not proof either.
      await writeFile(join(outside, 'fake-marker'), 'airlock spill session real\n');
      await rm(join(real, '.airlock-spill-session'));
      await symlink(join(outside, 'fake-marker'), join(real, '.airlock-spill-session'));
      await age(real, 30 * DAY);
      const result = await SpillStore.cleanup(root, { olderThanMs: 0 });
      expect(result.removed).toEqual([]);
      await expectBytes(outsideFiles);
      expect(await exists(join(real, 'fake'))).toBe(false);
      expect((await readdir(real)).length).toBe(2);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('never recurses: a folder nested into an old session survives, and so does the session folder', async () => {
    const old = await oldSession('old', 30 * DAY);
    const nested = join(old, 'nested');
    const nestedFiles = await foreignFolder(nested, 30 * DAY);
    await age(old, 30 * DAY);
    const result = await SpillStore.cleanup(root, { olderThanMs: DAY });
    expect(result.failed).toEqual([old]);
    await expectBytes(nestedFiles);
    expect((await readdir(old)).sort()).toEqual(['.airlock-spill-session', 'nested']);
  });

  it('refuses to spill into an existing folder it did not make, and leaves its files alone', async () => {
    const folder = join(root, 'taken');
    const files = await foreignFolder(folder, 0);
    const store = createSpillStore({ root, sessionId: 'taken', budgetBytes: 4 });
    await expect(store.spill('data')).rejects.toThrow(/already exists and was not made by Airlock .*limits\.spillDir/);
    await store.dispose();
    await expectBytes(files);
  });

  it('is a no-op for a root that does not exist', async () => {
    expect(await SpillStore.cleanup(join(root, 'missing'))).toEqual({ removed: [], failed: [] });
  });
});

describe('SpillStore.dispose', () => {
  it('keeps the files a result named (they outlive the process), closes open writers and refuses further spills', async () => {
    const store = createSpillStore({ root, sessionId: 's' });
    const info = await store.spill('data');
    const writer = store.open();
    writer.write('pending');
    await store.dispose();
    expect(await readFile(info.path, 'utf8')).toBe('data');
    expect(await readFile(writer.path, 'utf8')).toBe('pending');
    await expect(store.spill('more')).rejects.toThrow(/disposed; create a new one/);
    expect(() => store.open()).toThrow(/disposed/);
    await store.dispose(); // idempotent
  });
});

describe('SpillStore retention: age and total size', () => {
  it('past the total budget, the oldest other sessions go first; its own session always stays', async () => {
    const oldest = await oldSession('oldest', 3 * DAY);
    const middle = await oldSession('middle', 2 * DAY);
    const newest = await oldSession('newest', 1 * DAY);
    // Each old session holds 3 bytes ("old"); this one will hold 4: a budget of 10 keeps two others.
    const store = createSpillStore({ root, sessionId: 'me', totalBudgetBytes: 10 });
    await store.spill('mine');
    await store.idle();
    expect(await exists(oldest)).toBe(false);
    expect(await exists(middle)).toBe(true);
    expect(await exists(newest)).toBe(true);
    expect(await exists(store.dir)).toBe(true);
    // Over budget by its own files alone: the others go, its own stays.
    const result = await SpillStore.cleanup(root, { olderThanMs: 30 * DAY, maxTotalBytes: 4, keep: ['me'] });
    expect(result.removed.sort()).toEqual([middle, newest].sort());
    expect(await readdir(store.dir)).toHaveLength(2);
  });

  it('the age limit applies to sessions of earlier processes: a file stays readable until then', async () => {
    const first = createSpillStore({ root, sessionId: 'first', retentionMs: DAY });
    const { path } = await first.spill('named in a result');
    await first.dispose();
    const second = createSpillStore({ root, sessionId: 'second', retentionMs: DAY });
    await second.spill('x');
    await second.idle();
    expect(await readFile(path, 'utf8')).toBe('named in a result');
    await age(first.dir, 2 * DAY);
    const third = createSpillStore({ root, sessionId: 'third', retentionMs: DAY });
    await third.spill('x');
    await third.idle();
    expect(await exists(first.dir)).toBe(false);
    expect(await exists(second.dir)).toBe(true);
  });
});

describe('SpillStore: the root is this user\'s private folder', () => {
  it('creates it 0700', async () => {
    const store = createSpillStore({ root: join(root, 'fresh', 'spill'), sessionId: 's' });
    await store.spill('x');
    expect(await modeOf(store.root)).toBe(0o700);
  });

  it('refuses a root others can write, a root that is a symlink, and says how to fix it', async () => {
    const open = join(root, 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    const store = createSpillStore({ root: open, sessionId: 's' });
    await expect(store.spill('secret output')).rejects.toThrow(/can be written by other users \(mode 777\)\. Make it private \(chmod 700 .*\), or set limits\.spillDir/);
    expect(await readdir(open)).toEqual([]);
    const link = join(root, 'link');
    await mkdir(join(root, 'target'), { mode: 0o700 });
    await symlink(join(root, 'target'), link);
    await expect(createSpillStore({ root: link, sessionId: 's' }).spill('x')).rejects.toThrow(/is not a folder \(a symlink\)/);
    expect(await readdir(join(root, 'target'))).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)('refuses a root another user owns', async () => {
    const theirs = join(root, 'theirs');
    await mkdir(theirs, { mode: 0o700 });
    await chown(theirs, 65534, 65534);
    await expect(createSpillStore({ root: theirs, sessionId: 's' }).spill('x')).rejects.toThrow(/belongs to another user \(uid 65534/);
  });
});

describe('SpillStore.open (streaming)', () => {
  it('writes chunks in order and copies reused buffers', async () => {
    const store = createSpillStore({ root, sessionId: 's' });
    const writer = store.open({ name: 'bash', ext: 'log' });
    const reused = new Uint8Array(2);
    let expected = '';
    for (let i = 0; i < 500; i++) {
      if (i % 2 === 0) {
        writer.write(`${i},`);
        expected += `${i},`;
      } else {
        reused.set([0x61 + (i % 26), 0x3b]);
        writer.write(reused);
        expected += `${String.fromCharCode(0x61 + (i % 26))};`;
      }
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const info = await writer.close();
    expect(await readFile(writer.path, 'utf8')).toBe(expected);
    expect(info).toEqual({ path: writer.path, bytes: expected.length, offeredBytes: expected.length, capped: false });
    expect(await modeOf(writer.path)).toBe(0o600);
    expect(() => writer.write('late')).toThrow(/closed; open a new one/);
  });

  it('creates the file even when nothing was written', async () => {
    const store = createSpillStore({ root, sessionId: 's' });
    const writer = store.open();
    expect(await writer.close()).toMatchObject({ bytes: 0, offeredBytes: 0, capped: false });
    expect(await readFile(writer.path, 'utf8')).toBe('');
  });

  it('counts and drops writes past the budget', async () => {
    const store = createSpillStore({ root, sessionId: 's', budgetBytes: 10 });
    const writer = store.open();
    writer.write('123456');
    writer.write('789abc');
    writer.write('def');
    const info = await writer.close();
    expect(info).toMatchObject({ bytes: 10, offeredBytes: 15, capped: true });
    expect(await readFile(writer.path, 'utf8')).toBe('123456789a');
  });

  it('evicts closed files but never a file still being written', async () => {
    const store = createSpillStore({ root, sessionId: 's', budgetBytes: 10 });
    const open = store.open();
    open.write('aaaa');
    const closed = await store.spill('bbbb');
    const next = await store.spill('cccccc');
    await store.idle();
    expect(await exists(closed.path)).toBe(false);
    expect(next).toMatchObject({ bytes: 6, capped: false });
    const info = await open.close();
    expect(info.bytes).toBe(4);
    expect(await readFile(open.path, 'utf8')).toBe('aaaa');
  });

  it('discard deletes the file and returns its bytes to the budget', async () => {
    const store = createSpillStore({ root, sessionId: 's', budgetBytes: 100 });
    const writer = store.open();
    writer.write('x'.repeat(60));
    await writer.discard();
    expect(await exists(writer.path)).toBe(false);
    expect(store.usedBytes).toBe(0);
    expect(await readdir(store.dir)).toEqual(['.airlock-spill-session']);
    expect(() => writer.write('y')).toThrow(/closed/);
  });
});

import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileMutationKeyError, FileMutationQueue } from '../src/file-mutation-queue.js';

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Poll until `condition` holds; fails with `label` instead of hanging until the test timeout. */
async function waitFor(condition: () => boolean, label: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${label}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** A few event-loop turns, so fs callbacks and microtasks can run. */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Wait until every call has its key and sits in its lane (running or waiting). */
async function settledKeys(queue: FileMutationQueue): Promise<void> {
  await waitFor(() => queue.resolvingCount === 0, 'all keys resolved');
}

let dir: string;

beforeEach(async () => {
  // realpath: on some systems the temp dir itself sits behind a symlink (macOS /var).
  dir = await realpath(await mkdtemp(join(tmpdir(), 'airlock-fmq-')));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileMutationQueue: ordering and concurrency', () => {
  it('runs calls on the same path one at a time, in call order', async () => {
    const queue = new FileMutationQueue();
    const file = join(dir, 'a.txt');
    await writeFile(file, '');
    const events: string[] = [];
    let active = 0;
    let maxActive = 0;
    const calls = [0, 1, 2, 3, 4].map((i) =>
      queue.run(file, async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        events.push(`start ${i}`);
        await ticks(5 - i); // earlier calls take longer, so a broken queue would reorder ends
        events.push(`end ${i}`);
        active--;
        return i;
      }),
    );
    await expect(Promise.all(calls)).resolves.toEqual([0, 1, 2, 3, 4]);
    expect(maxActive).toBe(1);
    expect(events).toEqual([0, 1, 2, 3, 4].flatMap((i) => [`start ${i}`, `end ${i}`]));
  });

  it('runs calls on different paths concurrently', async () => {
    const queue = new FileMutationQueue();
    const aStarted = deferred();
    const bStarted = deferred();
    const overlap: string[] = [];
    const timeout = (label: string) =>
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${label} never overlapped`)), 2000));
    // Each fn waits until the other has started: only possible if both run at the same time.
    const a = queue.run(join(dir, 'a.txt'), async () => {
      aStarted.resolve();
      await Promise.race([bStarted.promise, timeout('a')]);
      overlap.push('a saw b running');
    });
    const b = queue.run(join(dir, 'b.txt'), async () => {
      bStarted.resolve();
      await Promise.race([aStarted.promise, timeout('b')]);
      overlap.push('b saw a running');
    });
    await Promise.all([a, b]);
    expect(overlap.sort()).toEqual(['a saw b running', 'b saw a running']);
    expect(queue.activeKeyCount).toBe(0);
  });

  it('resolves keys concurrently instead of one realpath after another', async () => {
    const gate = deferred();
    let inFlight = 0;
    let maxInFlight = 0;
    const queue = new FileMutationQueue({
      realpath: async (p) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await gate.promise;
        inFlight--;
        return realpath(p);
      },
    });
    const files = ['x', 'y', 'z'].map((name) => join(dir, name));
    await Promise.all(files.map((f) => writeFile(f, '')));
    const runs = files.map((f) => queue.run(f, async () => f));
    // With a global resolution chain only one realpath would ever be in flight.
    await waitFor(() => inFlight === 3, 'three realpath calls in flight');
    gate.resolve();
    await expect(Promise.all(runs)).resolves.toEqual(files);
    expect(maxInFlight).toBe(3);
  });

  it('keeps call order on one file even when the earlier caller resolves its key later', async () => {
    const file = join(dir, 'target.txt');
    const alias = join(dir, 'alias.txt');
    await writeFile(file, '');
    await symlink(file, alias);
    const slow = deferred();
    const queue = new FileMutationQueue({
      realpath: async (p) => {
        if (p === alias) await slow.promise;
        return realpath(p);
      },
    });
    const order: string[] = [];
    const first = queue.run(alias, async () => {
      order.push('first (slow key)');
    });
    const second = queue.run(file, async () => {
      order.push('second (fast key)');
    });
    // The second key is known, yet the second call must not start before the first.
    expect(await queue.keyFor(file)).toBe(file);
    await ticks(20);
    expect(order).toEqual([]);
    expect(queue.resolvingCount).toBe(2);
    slow.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['first (slow key)', 'second (fast key)']);
  });

  it('does not make a later call on another file wait for an earlier call to finish running', async () => {
    const queue = new FileMutationQueue();
    const hold = deferred();
    const first = queue.run(join(dir, 'a.txt'), () => hold.promise);
    await expect(queue.run(join(dir, 'b.txt'), async () => 'b done')).resolves.toBe('b done');
    hold.resolve();
    await first;
  });
});

describe('FileMutationQueue: keys', () => {
  it('gives a symlink alias of an existing file the same queue', async () => {
    const queue = new FileMutationQueue();
    const file = join(dir, 'real.txt');
    const alias = join(dir, 'alias.txt');
    await writeFile(file, '');
    await symlink(file, alias);
    expect(await queue.keyFor(alias)).toBe(file);

    const hold = deferred();
    let aliasRan = false;
    const first = queue.run(file, () => hold.promise);
    const second = queue.run(alias, async () => {
      aliasRan = true;
    });
    await settledKeys(queue);
    expect(queue.activeKeyCount).toBe(1);
    expect(aliasRan).toBe(false);
    hold.resolve();
    await Promise.all([first, second]);
    expect(aliasRan).toBe(true);
  });

  it('gives a new file reached through two symlinked folders one key', async () => {
    const queue = new FileMutationQueue();
    const real = join(dir, 'real');
    await mkdir(real);
    await symlink(real, join(dir, 'via-a'));
    await symlink(join(dir, 'via-a'), join(dir, 'via-b')); // a link to a link
    const viaA = join(dir, 'via-a', 'new.txt');
    const viaB = join(dir, 'via-b', 'new.txt');
    expect(await queue.keyFor(viaA)).toBe(join(real, 'new.txt'));
    expect(await queue.keyFor(viaB)).toBe(join(real, 'new.txt'));
    // Missing folders on the way: the nearest existing parent is resolved, the rest appended.
    expect(await queue.keyFor(join(dir, 'via-b', 'missing', 'deeper', 'f.txt'))).toBe(
      join(real, 'missing', 'deeper', 'f.txt'),
    );

    const hold = deferred();
    let secondRan = false;
    const first = queue.run(viaA, () => hold.promise);
    const second = queue.run(viaB, async () => {
      secondRan = true;
    });
    await settledKeys(queue);
    expect(secondRan).toBe(false);
    hold.resolve();
    await Promise.all([first, second]);
    expect(secondRan).toBe(true);
  });

  it('gives a relative and an absolute path to the same file one key', async () => {
    const queue = new FileMutationQueue();
    const file = join(dir, 'sub', 'f.txt');
    await mkdir(join(dir, 'sub'));
    expect(await queue.keyFor('sub/f.txt', dir)).toBe(file);
    expect(await queue.keyFor('./sub/../sub/f.txt', dir)).toBe(file);
    expect(await queue.keyFor(relative(process.cwd(), file))).toBe(file);

    const hold = deferred();
    let relativeRan = false;
    const first = queue.run(file, () => hold.promise);
    const second = queue.run(
      'sub/f.txt',
      async () => {
        relativeRan = true;
      },
      { cwd: dir },
    );
    await settledKeys(queue);
    expect(relativeRan).toBe(false);
    hold.resolve();
    await Promise.all([first, second]);
    expect(relativeRan).toBe(true);
  });

  it('resolves ".." after a symlink the way the file system does, not lexically', async () => {
    const queue = new FileMutationQueue();
    await mkdir(join(dir, 'real', 'sub'), { recursive: true });
    await symlink(join(dir, 'real', 'sub'), join(dir, 'ln'));
    // fs.writeFile('ln/../x.txt') creates real/x.txt; path.resolve would say dir/x.txt.
    expect(await queue.keyFor('ln/../x.txt', dir)).toBe(join(dir, 'real', 'x.txt'));
    await writeFile(`${dir}/ln/../x.txt`, 'physical'); // a template, since path.join collapses ".."
    expect(await readFile(join(dir, 'real', 'x.txt'), 'utf8')).toBe('physical');
  });

  it('keys a dangling symlink by the file a write through it would create', async () => {
    const queue = new FileMutationQueue();
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real', 'later.txt'), join(dir, 'dangling'));
    await symlink('real/not-yet/x.txt', join(dir, 'relative-dangling'));
    expect(await queue.keyFor(join(dir, 'dangling'))).toBe(join(dir, 'real', 'later.txt'));
    expect(await queue.keyFor(join(dir, 'relative-dangling'))).toBe(join(dir, 'real', 'not-yet', 'x.txt'));
    // Check the premise: writing through the link does create the target.
    await writeFile(join(dir, 'dangling'), 'x');
    expect(await readFile(join(dir, 'real', 'later.txt'), 'utf8')).toBe('x');
  });

  it('walks up past a path segment that is a file (ENOTDIR) instead of failing', async () => {
    const queue = new FileMutationQueue();
    await writeFile(join(dir, 'plain'), '');
    expect(await queue.keyFor(join(dir, 'plain', 'child.txt'))).toBe(join(dir, 'plain', 'child.txt'));
  });

  it('rejects with an error naming the path on a symlink loop, and the queue keeps working', async () => {
    const queue = new FileMutationQueue();
    await symlink(join(dir, 'loop-b'), join(dir, 'loop-a'));
    await symlink(join(dir, 'loop-a'), join(dir, 'loop-b'));
    const looped = join(dir, 'loop-a', 'f.txt');
    let ran = false;
    const error = await queue
      .run(looped, async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileMutationKeyError);
    expect((error as FileMutationKeyError).code).toBe('ELOOP');
    expect((error as Error).message).toContain(looped);
    expect(ran).toBe(false);
    expect(queue.activeKeyCount).toBe(0);
    expect(queue.resolvingCount).toBe(0);
    await expect(queue.run(join(dir, 'ok.txt'), async () => 'ok')).resolves.toBe('ok');
  });

  it('does not let a failing key resolution hold up later calls (EIO injected)', async () => {
    const denied = join(dir, 'secret', 'f.txt');
    const gate = deferred();
    const queue = new FileMutationQueue({
      realpath: async (p) => {
        if (p.startsWith(join(dir, 'secret'))) {
          await gate.promise;
          throw Object.assign(new Error(`EIO: i/o error, realpath '${p}'`), { code: 'EIO' });
        }
        return realpath(p);
      },
    });
    const failing = queue.run(denied, async () => 'never');
    const later = queue.run(join(dir, 'fine.txt'), async () => 'fine');
    await ticks(10);
    gate.resolve();
    await expect(failing).rejects.toMatchObject({ name: 'FileMutationKeyError', code: 'EIO', path: denied });
    await expect(failing).rejects.toThrow(denied);
    await expect(later).resolves.toBe('fine');
    expect(queue.resolvingCount).toBe(0);
    expect(queue.activeKeyCount).toBe(0);
  });
});

describe('FileMutationQueue: a folder that may not be searched', () => {
  it('keys a path below it by the folder (EACCES is like a missing file: the tool then reports the real error)', async () => {
    const hidden = join(dir, 'locked');
    const queue = new FileMutationQueue({
      realpath: async (p) => {
        if (p.startsWith(`${hidden}/`)) throw Object.assign(new Error(`EACCES: permission denied, realpath '${p}'`), { code: 'EACCES' });
        return realpath(p);
      },
    });
    await mkdir(hidden, { recursive: true });
    const order: string[] = [];
    const first = queue.run(join(hidden, 'a.txt'), async () => void order.push('first'));
    const second = queue.run(join(hidden, '.', 'a.txt'), async () => void order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    expect(queue.activeKeyCount).toBe(0);
  });
});

describe('FileMutationQueue: failures and aborts', () => {
  it('lets the next waiter run after fn rejects or throws synchronously', async () => {
    const queue = new FileMutationQueue();
    const file = join(dir, 'f.txt');
    const order: string[] = [];
    const failing = queue.run(file, async () => {
      order.push('failing');
      throw new Error('boom');
    });
    const throwing = queue.run(file, (() => {
      order.push('throwing');
      throw new Error('sync boom');
    }) as () => Promise<void>);
    const next = queue.run(file, async () => {
      order.push('next');
      return 'ok';
    });
    await expect(failing).rejects.toThrow('boom');
    await expect(throwing).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe('ok');
    expect(order).toEqual(['failing', 'throwing', 'next']);
    expect(queue.activeKeyCount).toBe(0);
  });

  it('rejects at once with an AbortError when the signal is already aborted', async () => {
    const queue = new FileMutationQueue();
    let ran = false;
    const run = queue.run(
      join(dir, 'f.txt'),
      async () => {
        ran = true;
      },
      { signal: AbortSignal.abort() },
    );
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(ran).toBe(false);
    expect(queue.resolvingCount).toBe(0);
  });

  it('drops a waiter aborted in line: fn never runs and the next waiter is not delayed', async () => {
    const queue = new FileMutationQueue();
    const file = join(dir, 'f.txt');
    const hold = deferred();
    const order: string[] = [];
    const controller = new AbortController();
    const holder = queue.run(file, async () => {
      order.push('holder');
      await hold.promise;
    });
    const aborted = queue.run(
      file,
      async () => {
        order.push('aborted');
      },
      { signal: controller.signal },
    );
    const last = queue.run(file, async () => {
      order.push('last');
    });
    await settledKeys(queue);
    controller.abort(new Error('user pressed escape'));
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError', cause: { message: 'user pressed escape' } });
    hold.resolve();
    await Promise.all([holder, last]);
    expect(order).toEqual(['holder', 'last']);
    expect(queue.activeKeyCount).toBe(0);
  });

  it('drops a caller aborted while its key is still resolving, without blocking later calls', async () => {
    const slow = join(dir, 'slow.txt');
    const queue = new FileMutationQueue({
      // Never resolves: only the abort can take this caller out of line.
      realpath: (p) => (p === slow ? new Promise<string>(() => {}) : realpath(p)),
    });
    const controller = new AbortController();
    let slowRan = false;
    const stuck = queue.run(
      slow,
      async () => {
        slowRan = true;
      },
      { signal: controller.signal },
    );
    let laterRan = false;
    const later = queue.run(join(dir, 'other.txt'), async () => {
      laterRan = true;
    });
    await ticks(10);
    expect(laterRan).toBe(false); // it must wait: the stuck key might name the same file
    controller.abort();
    await expect(stuck).rejects.toMatchObject({ name: 'AbortError' });
    await later;
    expect(laterRan).toBe(true);
    expect(slowRan).toBe(false);
    expect(queue.resolvingCount).toBe(0);
  });

  it('keeps the lock while an aborted fn is still running, until it settles', async () => {
    const queue = new FileMutationQueue();
    const file = join(dir, 'f.txt');
    const controller = new AbortController();
    const writeDone = deferred();
    const events: string[] = [];
    const running = queue.run(
      file,
      async () => {
        events.push('write started');
        await writeDone.promise; // the write in flight ignores the abort
        events.push('write finished');
        return 'written';
      },
      { signal: controller.signal },
    );
    const next = queue.run(file, async () => {
      events.push('next');
    });
    await waitFor(() => events.length === 1, 'first write started');
    await settledKeys(queue);
    controller.abort();
    await ticks(10);
    expect(events).toEqual(['write started']);
    expect(queue.activeKeyCount).toBe(1);
    writeDone.resolve();
    await expect(running).resolves.toBe('written');
    await next;
    expect(events).toEqual(['write started', 'write finished', 'next']);
  });

  it('empties its map after the last waiter of each key, whatever the outcome', async () => {
    const queue = new FileMutationQueue();
    const hold = deferred();
    const controller = new AbortController();
    const runs = [
      queue.run(join(dir, 'a'), () => hold.promise),
      queue.run(join(dir, 'a'), async () => {}, { signal: controller.signal }),
      queue.run(join(dir, 'b'), async () => {
        throw new Error('x');
      }),
      queue.run(join(dir, 'c'), () => hold.promise),
    ];
    const settled = Promise.allSettled(runs);
    await settledKeys(queue);
    expect(queue.activeKeyCount).toBe(2); // b already finished; a and c are held
    controller.abort();
    hold.resolve();
    const outcomes = (await settled).map((o) => o.status);
    expect(outcomes).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(queue.activeKeyCount).toBe(0);
    expect(queue.resolvingCount).toBe(0);
  });

  it('keeps separate queue instances independent (no module-level state)', async () => {
    const one = new FileMutationQueue();
    const two = new FileMutationQueue();
    const file = join(dir, 'f.txt');
    const hold = deferred();
    const held = one.run(file, () => hold.promise);
    // `run` resolves the real path before it takes the key: under load that can come after the
    // second queue's whole run, which would prove nothing. Wait until the first queue holds it.
    await vi.waitFor(() => expect(one.activeKeyCount).toBe(1));
    await expect(two.run(file, async () => 'ran')).resolves.toBe('ran');
    expect(one.activeKeyCount).toBe(1);
    expect(two.activeKeyCount).toBe(0);
    hold.resolve();
    await held;
  });
});

describe('FileMutationQueue: read-modify-write property', () => {
  type Runner = (path: string, fn: () => Promise<void>) => Promise<void>;

  /**
   * Call i reads the file, waits a few event-loop turns, then writes it back with token i
   * appended. Paths alternate between aliases of the one file. Returns the final content.
   */
  async function appendConcurrently(run: Runner, file: string, delays: number[], aliases: string[]): Promise<string> {
    await writeFile(file, '');
    await Promise.all(
      delays.map((delay, i) =>
        run(aliases[i % aliases.length] as string, async () => {
          const before = await readFile(file, 'utf8');
          await ticks(delay);
          await writeFile(file, `${before}${i};`);
        }),
      ),
    );
    return readFile(file, 'utf8');
  }

  const scenario = fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 8 });
  let runId = 0;

  async function setUp(): Promise<{ file: string; aliases: string[] }> {
    const sub = join(dir, `run-${runId++}`);
    await mkdir(sub);
    const file = join(sub, 'counter.txt');
    await symlink(sub, `${sub}-link`);
    return { file, aliases: [file, join(`${sub}-link`, 'counter.txt'), relative(process.cwd(), file)] };
  }

  it('loses no update and applies them in call order through the queue', async () => {
    const queue = new FileMutationQueue();
    await fc.assert(
      fc.asyncProperty(scenario, async (delays) => {
        const { file, aliases } = await setUp();
        const content = await appendConcurrently((p, fn) => queue.run(p, fn), file, delays, aliases);
        expect(content).toBe(delays.map((_, i) => `${i};`).join(''));
        expect(queue.activeKeyCount).toBe(0);
      }),
      { numRuns: 60 },
    );
  });

  it('control: the same scenario without the queue loses updates, so the property can fail', async () => {
    const unqueued: Runner = (_path, fn) => fn();
    const result = await fc.check(
      fc.asyncProperty(scenario, async (delays) => {
        const { file, aliases } = await setUp();
        const content = await appendConcurrently(unqueued, file, delays, aliases);
        expect(content).toBe(delays.map((_, i) => `${i};`).join(''));
      }),
      { numRuns: 60 },
    );
    expect(result.failed).toBe(true);
  });
});

import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DialogQueue, DialogTimeoutError, queueFor } from '../../src/ui/dialog-queue.js';
import { fakeBackend, flush } from './fake-backend.js';

const ABORTED = { noAnswer: { kind: 'aborted' } };

/** Settles-or-not probe: the value if the promise has settled, the string 'pending' otherwise. */
async function peek<T>(promise: Promise<T>): Promise<T | 'pending'> {
  const pending = Symbol('pending');
  await flush();
  const result = await Promise.race([promise, Promise.resolve(pending)]);
  return result === pending ? 'pending' : (result as T);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DialogQueue: one at a time, first come first served', () => {
  it('shows dialogs in the order they were asked for, never two at once', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend();
    const a = queue.run({ show: ui.show<boolean>('A') });
    const b = queue.run({ show: ui.show<string | undefined>('B') });
    const c = queue.run({ show: ui.show<string | undefined>('C') });
    await flush();
    expect(ui.events).toEqual(['start A']);
    expect(queue.waiting).toBe(2);
    expect(queue.showing).toBe(true);

    ui.current().answer(true);
    await flush();
    ui.current().answer('blue');
    await flush();
    ui.current().answer('typed');

    expect(await Promise.all([a, b, c])).toEqual([true, 'blue', 'typed']);
    expect(ui.events).toEqual(['start A', 'end A (answered)', 'start B', 'end B (answered)', 'start C', 'end C (answered)']);
    expect(ui.maxShowing).toBe(1);
    await flush();
    expect(queue.showing).toBe(false);
  });

  it('serialises several askers sharing one queue (parallel tools, several extensions)', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend();
    const asks = ['tool-1', 'tool-2', 'ext-a', 'ext-b', 'tool-3'].map((name) => queue.run({ show: ui.show<string>(name) }));
    for (let i = 0; i < asks.length; i++) {
      await flush();
      ui.current().answer(ui.current().name.toUpperCase());
    }
    expect(await Promise.all(asks)).toEqual(['TOOL-1', 'TOOL-2', 'EXT-A', 'EXT-B', 'TOOL-3']);
    expect(ui.events.filter((e) => e.startsWith('start'))).toEqual(['start tool-1', 'start tool-2', 'start ext-a', 'start ext-b', 'start tool-3']);
    expect(ui.maxShowing).toBe(1);
  });
});

describe('DialogQueue: abort', () => {
  it('an abort while waiting removes the dialog at once: it never shows and answers "aborted"', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend();
    const controller = new AbortController();
    const a = queue.run({ show: ui.show<boolean>('A') });
    const b = queue.run({ signal: controller.signal, show: ui.show<boolean>('B') });
    const c = queue.run({ show: ui.show<boolean>('C') });
    await flush();

    controller.abort();
    expect(await peek(b)).toEqual(ABORTED); // resolved while A still shows
    expect(queue.waiting).toBe(1);

    ui.current().answer(true);
    await flush();
    ui.current().answer(true);
    expect(await Promise.all([a, c])).toEqual([true, true]);
    expect(ui.events).toEqual(['start A', 'end A (answered)', 'start C', 'end C (answered)']);
  });

  it('an abort while showing closes the dialog, answers "aborted" once it closed, and the next one shows', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend();
    const controller = new AbortController();
    const a = queue.run({ signal: controller.signal, show: ui.show<string | undefined>('A') });
    const b = queue.run({ show: ui.show<boolean>('B') });
    await flush();
    const shownA = ui.current();

    controller.abort(new Error('the tool call was aborted'));
    expect(shownA.context.signal.aborted).toBe(true);
    expect(shownA.context.signal.reason).toEqual(new Error('the tool call was aborted'));
    expect(await a).toEqual(ABORTED);

    await flush();
    ui.current().answer(true);
    expect(await b).toBe(true);
    expect(ui.events).toEqual(['start A', 'end A (closed)', 'start B', 'end B (answered)']);
    expect(ui.maxShowing).toBe(1);
  });

  it('a signal aborted before the call answers at once and never queues', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend();
    expect(await queue.run({ signal: AbortSignal.abort(), show: ui.show<boolean>('A') })).toEqual(ABORTED);
    expect(ui.events).toEqual([]);
    expect(queue.waiting).toBe(0);
  });

  it('an answer racing a cancel loses: once cancelled the answer is why it was cancelled', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend({ ignoreAbort: true });
    const controller = new AbortController();
    const a = queue.run({ signal: controller.signal, show: ui.show<boolean>('A') });
    await flush();
    controller.abort();
    ui.current().answer(true);
    expect(await a).toEqual(ABORTED);
  });
});

describe('DialogQueue: timeout', () => {
  it('a dialog that times out while showing is closed with a DialogTimeoutError and answers "timeout"', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const queue = new DialogQueue();
    const ui = fakeBackend();
    const start = Date.now();
    const a = queue.run({ timeoutMs: 5000, show: ui.show<boolean>('A') });
    const b = queue.run({ show: ui.show<string | undefined>('B') });
    await flush();
    const shownA = ui.current();
    expect(shownA.context.deadline).toBe(start + 5000);

    await vi.advanceTimersByTimeAsync(4999);
    expect(await peek(a)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await a).toEqual({ noAnswer: { kind: 'timeout', timeoutMs: 5000 } });
    expect(shownA.context.signal.reason).toBeInstanceOf(DialogTimeoutError);

    await flush();
    ui.current().answer('next');
    expect(await b).toBe('next');
    expect(ui.events).toEqual(['start A', 'end A (closed)', 'start B', 'end B (answered)']);
  });

  it('the timeout counts from the call: a dialog whose time runs out while waiting never shows', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const queue = new DialogQueue();
    const ui = fakeBackend();
    const a = queue.run({ show: ui.show<boolean>('A') });
    const b = queue.run({ timeoutMs: 1000, show: ui.show<string | undefined>('B') });
    const c = queue.run({ timeoutMs: 60_000, show: ui.show<string | undefined>('C') });
    await flush();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await peek(b)).toEqual({ noAnswer: { kind: 'timeout', timeoutMs: 1000 } });

    ui.current().answer(true);
    await flush();
    // C waited 1 s of its 60: its deadline still counts from its call.
    expect(ui.current().context.deadline! - Date.now()).toBe(59_000);
    ui.current().answer('c');
    expect(await Promise.all([a, c])).toEqual([true, 'c']);
    expect(ui.events).toEqual(['start A', 'end A (answered)', 'start C', 'end C (answered)']);
  });

  it('timeoutMs 0, negative or NaN answers at once; Infinity and undefined never time out', async () => {
    const queue = new DialogQueue();
    const ui = fakeBackend();
    for (const timeoutMs of [0, -5, Number.NaN]) {
      expect(await queue.run({ timeoutMs, show: ui.show<string>(`t${timeoutMs}`) })).toEqual({ noAnswer: { kind: 'timeout', timeoutMs: 0 } });
    }
    expect(ui.events).toEqual([]);
    const forever = queue.run({ timeoutMs: Infinity, show: ui.show<string>('forever') });
    await flush();
    expect(ui.current().context.deadline).toBeUndefined();
    ui.current().answer('yes');
    expect(await forever).toBe('yes');
  });
});

describe('DialogQueue: failures never block the line', () => {
  it('a backend that rejects answers "unavailable", is reported, and the next dialog shows', async () => {
    const onError = vi.fn();
    const queue = new DialogQueue({ onError });
    const ui = fakeBackend();
    const a = queue.run({ show: ui.show<boolean>('A') });
    const b = queue.run({ show: ui.show<boolean>('B') });
    await flush();
    ui.current().fail(new Error('terminal exploded'));
    expect(await a).toEqual({ noAnswer: { kind: 'unavailable', detail: 'the dialog failed: terminal exploded' } });
    expect(onError).toHaveBeenCalledWith(new Error('terminal exploded'));
    await flush();
    ui.current().answer(true);
    expect(await b).toBe(true);
  });

  it('says why there is no answer: timeout, abort, a failing backend, or what the backend answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const queue = new DialogQueue({ onError: () => {} });
    const ui = fakeBackend();
    const timedOut = queue.run({ timeoutMs: 5000, show: ui.show<boolean>('A') });
    await flush();
    await vi.advanceTimersByTimeAsync(5000);
    const controller = new AbortController();
    const aborted = queue.run({ signal: controller.signal, show: ui.show<boolean>('B') });
    await flush();
    controller.abort();
    const failed = queue.run({ show: ui.show<boolean>('C') });
    await flush();
    ui.current().fail(new Error('terminal exploded'));
    const declined = queue.run({ show: () => Promise.resolve({ noAnswer: { kind: 'declined' } }) });
    expect(await Promise.all([timedOut, aborted, failed, declined, queue.run({ signal: AbortSignal.abort(), show: ui.show<boolean>('E') })])).toEqual([
      { noAnswer: { kind: 'timeout', timeoutMs: 5000 } },
      ABORTED,
      { noAnswer: { kind: 'unavailable', detail: 'the dialog failed: terminal exploded' } },
      { noAnswer: { kind: 'declined' } },
      ABORTED,
    ]);
  });

  it('a backend that throws synchronously answers "unavailable"', async () => {
    const onError = vi.fn();
    const queue = new DialogQueue({ onError });
    const answer = await queue.run({
      show: () => {
        throw new Error('no terminal');
      },
    });
    expect(answer).toEqual({ noAnswer: { kind: 'unavailable', detail: 'the dialog failed: no terminal' } });
    expect(onError).toHaveBeenCalledWith(new Error('no terminal'));
  });

  it('a backend that ignores its cancel holds the line for closeGraceMs at most, then the next dialog shows', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const onError = vi.fn();
    const queue = new DialogQueue({ closeGraceMs: 200, onError });
    const ui = fakeBackend({ ignoreAbort: true });
    const controller = new AbortController();
    const a = queue.run({ signal: controller.signal, show: ui.show<boolean>('stuck') });
    const b = queue.run({ show: ui.show<boolean>('B') });
    await flush();
    controller.abort();
    await vi.advanceTimersByTimeAsync(199);
    expect(await peek(a)).toBe('pending');
    expect(ui.events).toEqual(['start stuck']);
    await vi.advanceTimersByTimeAsync(1);
    expect(await a).toEqual(ABORTED);
    await flush();
    expect(ui.events).toEqual(['start stuck', 'start B']);
    expect(onError.mock.calls[0]![0].message).toMatch(/did not close within 200 ms/);
    void b;
  });

  it('does not report a slow close for a dialog that closed in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const onError = vi.fn();
    const queue = new DialogQueue({ closeGraceMs: 100, onError });
    const ui = fakeBackend();
    const controller = new AbortController();
    const a = queue.run({ signal: controller.signal, show: ui.show<boolean>('A') });
    await flush();
    controller.abort();
    expect(await a).toEqual(ABORTED);
    await vi.advanceTimersByTimeAsync(1000);
    expect(onError).not.toHaveBeenCalled();
  });

  it('rejects a closeGraceMs that is not a number >= 0', () => {
    expect(() => new DialogQueue({ closeGraceMs: -1 })).toThrow(TypeError);
    expect(() => new DialogQueue({ closeGraceMs: Number.NaN })).toThrow(/closeGraceMs/);
  });
});

describe('queueFor', () => {
  it('gives every UI on one channel the same queue, and other channels their own', () => {
    const stdin = {};
    const other = {};
    expect(queueFor(stdin)).toBe(queueFor(stdin));
    expect(queueFor(stdin)).not.toBe(queueFor(other));
  });
});

describe('DialogQueue: any mix of answers, aborts and waits', () => {
  it('never shows two at once, shows in call order, and settles every dialog', async () => {
    type Step = { kind: 'answer' } | { kind: 'abort'; index: number } | { kind: 'ask' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constant<Step>({ kind: 'answer' }),
      fc.nat(20).map<Step>((index) => ({ kind: 'abort', index })),
      fc.constant<Step>({ kind: 'ask' }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const queue = new DialogQueue();
        const ui = fakeBackend();
        const asked: { name: string; controller: AbortController; result: Promise<unknown> }[] = [];
        const ask = () => {
          const name = `d${asked.length}`;
          const controller = new AbortController();
          asked.push({ name, controller, result: queue.run({ signal: controller.signal, show: ui.show<string>(name) }) });
        };
        for (const s of steps) {
          if (s.kind === 'ask') ask();
          else if (s.kind === 'abort') asked[s.index % Math.max(1, asked.length)]?.controller.abort();
          else if (ui.showing === 1) ui.current().answer(`yes ${ui.current().name}`);
          await flush();
        }
        // Drain: answer whatever is left.
        while (ui.showing === 1) {
          ui.current().answer(`yes ${ui.current().name}`);
          await flush();
        }
        const results = await Promise.all(asked.map((a) => a.result));

        expect(ui.maxShowing).toBeLessThanOrEqual(1);
        const started = ui.events.filter((e) => e.startsWith('start ')).map((e) => Number(e.slice('start d'.length)));
        expect(started).toEqual([...started].sort((x, y) => x - y));
        results.forEach((result, i) => {
          const shown = started.includes(i);
          const answered = ui.events.includes(`end d${i} (answered)`);
          expect(result).toEqual(answered ? `yes d${i}` : ABORTED);
          // A dialog aborted before its turn never shows.
          if (!shown) expect(asked[i]!.controller.signal.aborted).toBe(true);
        });
        // Strict alternation start/end: nothing overlapped.
        ui.events.forEach((event, i) => expect(event.startsWith(i % 2 === 0 ? 'start' : 'end')).toBe(true));
      }),
      { numRuns: 150 },
    );
  });
});

import type { DialogShowContext } from '../../src/ui/dialog-queue.js';

/** One dialog as the fake backend saw it; the test answers or closes it by hand. */
export interface FakeDialog {
  name: string;
  context: DialogShowContext;
  answer(value: unknown): void;
  fail(error: unknown): void;
}

/**
 * A dialog backend that records when each dialog starts and ends (as ordered events, never times)
 * and, unless told to ignore it, closes a dialog as soon as its signal aborts.
 */
export function fakeBackend(options: { ignoreAbort?: boolean } = {}) {
  const events: string[] = [];
  const open = new Map<string, FakeDialog>();
  let showing = 0;
  let maxShowing = 0;

  function show<T>(name: string) {
    return (context: DialogShowContext): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        events.push(`start ${name}`);
        showing += 1;
        maxShowing = Math.max(maxShowing, showing);
        const end = (how: string) => {
          if (!open.delete(name)) return false;
          showing -= 1;
          events.push(`end ${name} (${how})`);
          return true;
        };
        open.set(name, {
          name,
          context,
          answer: (value) => end('answered') && resolve(value as T),
          fail: (error) => end('failed') && reject(error),
        });
        if (!options.ignoreAbort) {
          context.signal.addEventListener('abort', () => end('closed') && reject(context.signal.reason), { once: true });
        }
      });
  }

  return {
    show,
    events,
    /** The dialog on screen (throws if none or several: the queue must never show two). */
    current(): FakeDialog {
      const dialogs = [...open.values()];
      if (dialogs.length !== 1) throw new Error(`expected exactly one dialog showing, found ${dialogs.length}`);
      return dialogs[0]!;
    },
    get showing() {
      return showing;
    },
    get maxShowing() {
      return maxShowing;
    },
  };
}

/** Lets every pending promise callback run (the queue hops through a few). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

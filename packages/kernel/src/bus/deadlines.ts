/**
 * Time limits for handlers, without a timer per handler call.
 *
 * A setTimeout/clearTimeout pair costs about 0.3 µs; with ten handlers on each hook that alone
 * would eat most of the per-call budget. Deadlines of one duration expire in the order they were
 * set, so each duration keeps a FIFO list and at most one timer armed for its oldest live entry.
 * A cancelled entry is only marked; the head skips marked entries, so the list holds no more than
 * the calls in flight. An idle list leaves its timer unref'd so it never keeps the process alive.
 */
export interface Deadline {
  cancel(): void;
}

interface Entry {
  at: number;
  fire: () => void;
  live: boolean;
}

class DurationList {
  private entries: Entry[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  add(fire: () => void): Deadline {
    const entry: Entry = { at: performance.now() + this.ms, fire, live: true };
    this.entries.push(entry);
    if (this.timer === undefined) this.arm(entry.at);
    else if (this.entries.length - this.head === 1) this.timer.ref();
    return {
      cancel: () => {
        if (!entry.live) return;
        entry.live = false;
        this.skipDead();
      },
    };
  }

  private skipDead(): void {
    while (this.head < this.entries.length && !this.entries[this.head]!.live) this.head++;
    if (this.head === this.entries.length) {
      this.entries.length = 0;
      this.head = 0;
      this.timer?.unref();
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  private arm(at: number): void {
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - performance.now()));
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    // Fire everything due; a handler's fire() may add or cancel entries, so re-read as we go.
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      if (entry.live && entry.at > now) break;
      this.head++;
      if (entry.live) {
        entry.live = false;
        entry.fire();
      }
    }
    this.skipDead();
    const next = this.entries[this.head];
    if (next !== undefined && this.timer === undefined) this.arm(next.at);
  }
}

export class DeadlineQueue {
  private readonly lists = new Map<number, DurationList>();

  /** Call `fire` after `ms` milliseconds unless cancelled first. */
  after(ms: number, fire: () => void): Deadline {
    let list = this.lists.get(ms);
    if (list === undefined) {
      list = new DurationList(ms);
      this.lists.set(ms, list);
    }
    return list.add(fire);
  }
}

import type { EventSink, KernelEvent } from '@airlock/contract';

/**
 * Where a run's events go. Observers are called synchronously and never awaited, and a throwing or
 * rejecting observer is ignored: a broken UI must not break the call it shows.
 *
 * A class rather than a closure per run: V8 inlines a call to a one-off closure into the hot stage
 * functions and throws that code away when the closure dies at the next major GC.
 */
export class EventChannel {
  constructor(private readonly sink: EventSink | undefined) {}

  emit(event: KernelEvent): void {
    const sink = this.sink;
    if (sink === undefined) return;
    try {
      const r = sink(event) as unknown;
      if (r instanceof Promise) r.catch(ignore);
    } catch {
      // ignored: see the class comment
    }
  }
}

function ignore(): void {}

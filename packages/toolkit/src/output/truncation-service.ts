import type { TailAccumulator, TruncationLimits, TruncationResult, TruncationService } from '@airlock/contract';
import { createTailAccumulator } from './tail-accumulator.js';
import { resolveLimits, truncateHead, truncateTail } from './truncate.js';

/**
 * Truncation bound to the session's limits; a call may override either limit for itself.
 *
 * @example
 * const truncate = createTruncationService({ maxLines: 2000, maxBytes: 51200 });
 * truncate.head(text, { maxLines: 100 }); // 100 lines or 50 KiB
 */
export function createTruncationService(limits?: Partial<TruncationLimits>): TruncationService {
  const bound = resolveLimits(limits);
  return {
    head: (text, overrides) => truncateHead(text, resolveLimits(overrides, bound)),
    tail: (text, overrides) => truncateTail(text, resolveLimits(overrides, bound)),
    stream: (overrides) => createTailAccumulator(resolveLimits(overrides, bound)),
  };
}

/**
 * One call's view of `service` that tells `onCut` when it cut something (a head or tail that
 * truncated, a stream whose final tail did). That is how the kernel knows a tool limited its own
 * output, so its backstop keeps the tool's notice instead of cutting it off.
 *
 * @example
 * const truncate = noticingCuts(service, () => (state.limitedByTool = true));
 */
export function noticingCuts(service: TruncationService, onCut: () => void): TruncationService {
  const seen = (result: TruncationResult): TruncationResult => {
    if (result.truncated) onCut();
    return result;
  };
  return {
    head: (text, overrides) => seen(service.head(text, overrides)),
    tail: (text, overrides) => seen(service.tail(text, overrides)),
    stream: (overrides) => {
      const tail = service.stream(overrides);
      const view: TailAccumulator = {
        push: (chunk) => tail.push(chunk),
        snapshot: () => tail.snapshot(),
        end: () => seen(tail.end()),
        get totalBytes() {
          return tail.totalBytes;
        },
        get totalLines() {
          return tail.totalLines;
        },
        get lastLineBytes() {
          return tail.lastLineBytes;
        },
      };
      return view;
    },
  };
}

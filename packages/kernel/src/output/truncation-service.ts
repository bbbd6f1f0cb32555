import type { TruncationLimits, TruncationService } from '../contract/context.js';
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

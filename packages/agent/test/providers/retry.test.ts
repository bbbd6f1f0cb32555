import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, isRetryableStatus, retryAfterMs, retryDelay, retryPolicy } from '../../src/index.js';

describe('retry policy', () => {
  it('retries 408, 429 and 5xx only', () => {
    expect([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 529].filter(isRetryableStatus)).toEqual([408, 429, 500, 502, 503, 529]);
  });

  it('reads retry-after-ms, retry-after seconds and retry-after HTTP dates', () => {
    const now = Date.parse('Wed, 02 Dec 2026 01:00:00 GMT');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }), now)).toBe(150);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 02 Dec 2026 01:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 02 Dec 2026 00:59:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('backs off exponentially with at most 25 % jitter, capped, when the server says nothing', () => {
    const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([0, 1, 2, 3, 4].map((n) => retryDelay(n, policy, undefined, () => 0).delayMs)).toEqual([100, 200, 400, 800, 1000]);
    expect(retryDelay(1, policy, undefined, () => 0.999).delayMs).toBe(150);
  });

  it('waits what the server asked, and gives up when it asks for more than maxRetryAfterMs', () => {
    const policy = retryPolicy({ maxRetryAfterMs: 10_000 });
    expect(retryDelay(0, policy, new Headers({ 'retry-after': '3' }))).toEqual({ delayMs: 3000, fromServer: true });
    expect(retryDelay(0, policy, new Headers({ 'retry-after': '30' })).giveUp).toMatch(/asked to wait 30 s .* retry.maxRetryAfterMs \(10 s\)/);
  });

  it('fills defaults and refuses nonsense', () => {
    expect(retryPolicy()).toEqual(DEFAULT_RETRY);
    expect(retryPolicy({ maxRetries: 0 }).maxRetries).toBe(0);
    expect(() => retryPolicy({ maxRetries: -1 })).toThrow(/retry.maxRetries must be a number >= 0/);
    expect(() => retryPolicy({ baseDelayMs: Number.NaN })).toThrow(/retry.baseDelayMs/);
  });
});

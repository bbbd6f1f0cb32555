import { describe, expect, it } from 'vitest';
import { DeadlineQueue } from '../../src/bus/deadlines.js';
import { sleep } from '../helpers.js';

describe('DeadlineQueue', () => {
  it('fires a deadline after its time, and not before', async () => {
    const q = new DeadlineQueue();
    const fired: number[] = [];
    const start = performance.now();
    q.after(30, () => fired.push(performance.now() - start));
    await sleep(10);
    expect(fired).toEqual([]);
    await sleep(40);
    expect(fired).toHaveLength(1);
    expect(fired[0]!).toBeGreaterThanOrEqual(28);
  });

  it('never fires a cancelled deadline, and fires the live ones behind it', async () => {
    const q = new DeadlineQueue();
    const fired: string[] = [];
    const a = q.after(20, () => fired.push('a'));
    q.after(20, () => fired.push('b'));
    const c = q.after(20, () => fired.push('c'));
    q.after(20, () => fired.push('d'));
    a.cancel();
    c.cancel();
    c.cancel();
    await sleep(40);
    expect(fired).toEqual(['b', 'd']);
  });

  it('keeps separate durations apart and re-arms for entries added after the first timer', async () => {
    const q = new DeadlineQueue();
    const fired: string[] = [];
    q.after(40, () => fired.push('long'));
    const early = q.after(5, () => fired.push('never'));
    early.cancel();
    await sleep(10);
    q.after(5, () => fired.push('short'));
    await sleep(15);
    expect(fired).toEqual(['short']);
    await sleep(30);
    expect(fired).toEqual(['short', 'long']);
  });

  it('holds no entries once everything is cancelled (bounded by the calls in flight)', () => {
    const q = new DeadlineQueue();
    for (let i = 0; i < 10_000; i++) q.after(10_000, () => {}).cancel();
    const lists = (q as unknown as { lists: Map<number, { entries: unknown[] }> }).lists;
    expect(lists.get(10_000)!.entries.length).toBe(0);
  });
});

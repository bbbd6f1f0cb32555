import { describe, expect, it } from 'vitest';
import { progressReporter, type ProgressNotification } from '../src/index.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (t: string) => [{ type: 'text' as const, text: t }];

describe('progressReporter', () => {
  it('sends at most one notification per interval, with the newest output, and growing progress', async () => {
    const sent: ProgressNotification[] = [];
    const progress = progressReporter('tok', async (n) => void sent.push(n), { intervalMs: 100 });
    for (let i = 1; i <= 20; i++) {
      progress.update(text(`line ${i}\n`));
      await wait(10);
    }
    await wait(150);
    progress.finish();
    // 20 updates over ~200 ms: a handful of notifications, the last one with the newest output.
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeLessThanOrEqual(5);
    expect(sent.at(-1)!.params.message).toBe('line 20\n');
    expect(sent.map((n) => n.params.progress)).toEqual(sent.map((_, i) => i + 1));
    expect(sent.every((n) => n.params.progressToken === 'tok')).toBe(true);
  });

  it('sends nothing after finish, and keeps only the end of a long output', async () => {
    const sent: ProgressNotification[] = [];
    const progress = progressReporter(7, async (n) => void sent.push(n), { intervalMs: 50, maxChars: 10 });
    progress.update(text('0123456789abcdef'));
    await wait(20);
    expect(sent.map((n) => n.params.message)).toEqual(['…6789abcdef']);
    progress.update(text('late'));
    progress.finish();
    await wait(100);
    expect(sent).toHaveLength(1);
  });

  it('a slow reader: updates while a notification is being written replace each other instead of queueing', async () => {
    const sent: string[] = [];
    let release: (() => void) | undefined;
    const progress = progressReporter('t', (n) => new Promise<void>((done) => (sent.push(n.params.message), (release = done))), { intervalMs: 0 });
    progress.update(text('a'));
    await wait(5);
    for (const t of ['b', 'c', 'd']) progress.update(text(t));
    await wait(5);
    expect(sent).toEqual(['a']); // still writing 'a'
    release!();
    await wait(5);
    expect(sent).toEqual(['a', 'd']);
    release!();
    progress.finish();
  });
});

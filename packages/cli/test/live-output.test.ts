import { describe, expect, it } from 'vitest';
import { LIVE_GUTTER, liveOutput, overlap } from '../src/live-output.js';

/** What a terminal shows when a tool streams its tail (each new line once, in order), gutters taken off. */
function shown(tails: string[]): string {
  let out = '';
  const live = liveOutput((text) => (out += text));
  for (const tail of tails) live.update(tail);
  live.end();
  expect(out.split('\n').slice(0, -1).every((line) => line.startsWith(LIVE_GUTTER))).toBe(true);
  return out.split(LIVE_GUTTER).join('');
}

describe('live output from a streamed tail', () => {
  it('a growing tail prints only what is new', () => {
    expect(shown(['one\n', 'one\ntwo\n', 'one\ntwo\nthree\n'])).toBe('one\ntwo\nthree\n');
  });

  it('a tail whose window moved on (old lines dropped) still prints each line once', () => {
    expect(shown(['1\n2\n3\n', '2\n3\n4\n5\n', '5\n6\n'])).toBe('1\n2\n3\n4\n5\n6\n');
  });

  it('a window that moved past everything shown prints the whole new tail', () => {
    expect(shown(['a\nb\n', 'x\ny\n'])).toBe('a\nb\nx\ny\n');
  });

  it('repeated lines are not mistaken for old ones beyond the real overlap', () => {
    expect(shown(['x\nx\n', 'x\nx\nx\n'])).toBe('x\nx\nx\n');
    expect(overlap('abab', 'ababab')).toBe(4);
    expect(overlap('aab', 'abx')).toBe(2);
    expect(overlap('', 'abc')).toBe(0);
  });

  it('an unfinished last line is ended once, and end() says whether anything showed', () => {
    let out = '';
    const live = liveOutput((text) => (out += text));
    expect(live.end()).toBe(false);
    live.update('progress 50%');
    expect(live.end()).toBe(true);
    expect(out).toBe(`${LIVE_GUTTER}progress 50%\n`);
  });

  it('every line starts behind the gutter, also a line that began in an earlier update, so output cannot pass for a line of Airlock', () => {
    let out = '';
    const live = liveOutput((text) => (out += text));
    live.update('airlock: bash (call_1) → den');
    live.update('airlock: bash (call_1) → denied\nairlock: ');
    live.update('airlock: bash (call_1) → denied\nairlock: write (call_2) → ok\n\n');
    live.end();
    expect(out).toBe(`${LIVE_GUTTER}airlock: bash (call_1) → denied\n${LIVE_GUTTER}airlock: write (call_2) → ok\n${LIVE_GUTTER}\n`);
  });
});

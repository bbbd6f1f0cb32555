/**
 * Growth measurement for the linear-time tests: how much longer a scan of 4n characters takes
 * than a scan of n, both built by repeating one unit. Linear code gives ~4; code that rescans
 * from every start gives ~16 and worse. What is timed is this process's CPU time, not the wall
 * clock: on a loaded 2-core machine the wall clock of one scan varies 20×, its CPU time hardly.
 * And it is the minimum of interleaved repetitions, so a GC pause in one sample does not count.
 */
export const SMALL = 32 * 1024;
export const FACTOR = 4;
/** Linear is ~4×; quadratic is 16×. 9× leaves room for cache effects and a noisy neighbour. */
export const MAX_GROWTH = 9;
/** Below this the clock and the JIT dominate: times this small are linear by any measure. */
export const SLACK_MS = 0.5;
/** One scan of the large text this slow is quadratic already; stop measuring. */
const GIVE_UP_MS = 2_000;

export function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** CPU milliseconds (user + system) that `run(text)` took. */
function timeOnce(run: (text: string) => unknown, text: string): number {
  const before = process.cpuUsage();
  run(text);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

export interface Growth {
  small: number;
  large: number;
  ok: boolean;
}

/** Time `run` on the unit repeated to SMALL and to FACTOR × SMALL characters. */
export function growth(run: (text: string) => unknown, unit: string, reps = 5): Growth {
  const small = repeatTo(unit, SMALL);
  const large = repeatTo(unit, SMALL * FACTOR);
  run(small); // warm up the JIT on this shape of input
  let tSmall = Infinity;
  let tLarge = Infinity;
  for (let i = 0; i < reps; i++) {
    tSmall = Math.min(tSmall, timeOnce(run, small));
    const t = timeOnce(run, large);
    tLarge = Math.min(tLarge, t);
    if (t > GIVE_UP_MS) break;
  }
  return { small: tSmall, large: tLarge, ok: tLarge <= MAX_GROWTH * tSmall + SLACK_MS };
}

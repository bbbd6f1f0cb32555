/**
 * A time limit for a test, scaled like the run's own limits: by AIRLOCK_TEST_TIME_SCALE, which the
 * workspace's vitest config sets from the machine's load when the run starts (1 on a quiet
 * machine, about 4 on a 2-core machine running 8 busy processes). A limit is there to turn a hang
 * into a failure, never to measure speed: that is what benchmarks are for.
 *
 * @example
 * it('exits after the time limit', async () => { … }, scaledMs(30_000));
 */
export function scaledMs(ms: number): number {
  const scale = Number(process.env.AIRLOCK_TEST_TIME_SCALE);
  return Math.round(ms * (Number.isFinite(scale) && scale >= 1 ? scale : 1));
}

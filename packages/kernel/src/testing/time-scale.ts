/**
 * A time limit for a test, scaled like the run's own limits: by AIRLOCK_TEST_TIME_SCALE, which the
 * workspace's vitest config sets from the machine's load when the run starts (1 on a quiet
 * machine, about 4 on a 2-core machine running 8 busy processes). A limit is there to turn a hang
 * into a failure, never to measure speed: that is what benchmarks are for.
 *
 * `below` is the hang the limit must tell apart (a `sleep 30` that an abort should cut short, a
 * server's two-minute Retry-After): the scaled limit stays under it, since a load slows the work
 * but not the clock the hang runs on.
 *
 * @example
 * it('exits after the time limit', async () => { … }, scaledMs(30_000));
 * expect(Date.now() - started).toBeLessThan(scaledMs(5_000, { below: 30_000 })); // sleep 30 was cut short
 */
export function scaledMs(ms: number, options: { below?: number } = {}): number {
  const scale = Number(process.env.AIRLOCK_TEST_TIME_SCALE);
  const scaled = Math.round(ms * (Number.isFinite(scale) && scale >= 1 ? scale : 1));
  return options.below === undefined ? scaled : Math.min(scaled, Math.round(options.below * 0.9));
}

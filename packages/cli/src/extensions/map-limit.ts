/**
 * `Promise.all(items.map(fn))` with at most `limit` calls running at once, results in input order:
 * a registry is not asked for fifty documents at the same moment.
 *
 * @example await mapLimit(names, 6, (name) => fetchPackument(name))
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}

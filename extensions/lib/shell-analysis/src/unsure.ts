/**
 * Thrown anywhere in the analysis when the outcome cannot be known with certainty; the entry point
 * turns it into `{ ok: false, reason }`, which the policy answers with "ask". One exception type
 * keeps every module free of partial-result plumbing.
 */
export class Unsure extends Error {
  override name = 'Unsure';
}

export function unsure(reason: string): never {
  throw new Unsure(reason);
}

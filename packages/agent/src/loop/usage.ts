import type { Usage } from '@airlock/contract';

/**
 * A run's token totals. `model` sums what the provider reported for each of the loop's own
 * requests; `tools` sums the usage tools reported in their results (a sub-agent, a summariser).
 * They are kept apart: the first is what this conversation cost, the second what its tools spent
 * on their own, and adding them blindly would double-count a tool that proxies the same model.
 */
export interface UsageTotals {
  model: Required<Usage>;
  tools: Required<Usage>;
  /** Model requests the loop made (one per turn). */
  requests: number;
}

export function emptyUsage(): Required<Usage> {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };
}

export function emptyTotals(): UsageTotals {
  return { model: emptyUsage(), tools: emptyUsage(), requests: 0 };
}

/** Add `usage` into `total`; a missing or malformed figure counts as 0, never NaN. */
export function addUsage(total: Required<Usage>, usage: Usage | undefined): void {
  if (usage === undefined || usage === null) return;
  total.input += count(usage.input);
  total.output += count(usage.output);
  total.cacheRead += count(usage.cacheRead);
  total.cacheWrite += count(usage.cacheWrite);
  total.totalTokens += count(usage.totalTokens ?? count(usage.input) + count(usage.output));
  total.cost += count(usage.cost);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

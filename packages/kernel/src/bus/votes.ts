import type { Effect, Vote } from '@airlock/contract';

const RANK: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * Combine votes: deny beats ask beats allow, whatever order they came in and however specific
 * the rule behind them. No votes at all means allow (no policy is loaded).
 * Returns the winning effect and the votes that carry it (all deny votes, or all ask votes …).
 */
export function combineVotes(votes: readonly Vote[]): { effect: Effect; deciding: Vote[] } {
  let effect: Effect = 'allow';
  for (const vote of votes) if (RANK[vote.effect] > RANK[effect]) effect = vote.effect;
  return { effect, deciding: votes.filter((v) => v.effect === effect) };
}

export function isEffect(value: unknown): value is Effect {
  return value === 'allow' || value === 'ask' || value === 'deny';
}

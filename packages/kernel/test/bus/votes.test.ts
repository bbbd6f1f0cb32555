import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combineVotes } from '../../src/bus/votes.js';
import type { Vote } from '@airlock/contract';

const vote = fc.record({ effect: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const), handler: fc.string() });

describe('combineVotes', () => {
  it('no votes means allow', () => {
    expect(combineVotes([])).toEqual({ effect: 'allow', deciding: [] });
  });

  it('is independent of order: deny > ask > allow (property)', () => {
    fc.assert(
      fc.property(fc.array(vote, { maxLength: 8 }), fc.nat(), (votes: Vote[], seed) => {
        const shuffled = [...votes].sort((a, b) => ((a.handler.length * 31 + seed) % 7) - ((b.handler.length * 17 + seed) % 5));
        const expected = votes.some((v) => v.effect === 'deny') ? 'deny' : votes.some((v) => v.effect === 'ask') ? 'ask' : 'allow';
        expect(combineVotes(votes).effect).toBe(expected);
        expect(combineVotes(shuffled).effect).toBe(expected);
        expect(combineVotes(votes).deciding.every((v) => v.effect === expected)).toBe(true);
      }),
    );
  });
});

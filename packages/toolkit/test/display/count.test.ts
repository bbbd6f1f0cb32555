import { describe, expect, it } from 'vitest';
import { countOf } from '../../src/display/index.js';

describe('countOf', () => {
  it('says "1 rule" and "0 rules", never "1 rules"', () => {
    expect(countOf(1, 'rule')).toBe('1 rule');
    expect(countOf(0, 'rule')).toBe('0 rules');
    expect(countOf(7, 'project extension')).toBe('7 project extensions');
  });

  it('takes an irregular plural', () => {
    expect(countOf(2, 'match', 'matches')).toBe('2 matches');
    expect(countOf(1, 'match', 'matches')).toBe('1 match');
  });
});

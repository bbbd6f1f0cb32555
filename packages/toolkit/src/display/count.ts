/**
 * A number with its noun, singular or plural as the number needs: every "1 rules" in a message
 * came from a hand-written `s`. One place, so people read "1 rule", "0 rules", "2 matches".
 *
 * @example
 * countOf(1, 'rule');              // "1 rule"
 * countOf(3, 'rule');              // "3 rules"
 * countOf(2, 'match', 'matches');  // "2 matches"
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

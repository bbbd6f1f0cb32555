import { closestNames, didYouMean } from '../suggest.js';

/**
 * Refuse option names a function does not know, naming the closest known one. A misspelt option
 * (`baseURL` for `baseUrl`, `transcripts` for `transcript`) would otherwise be ignored without a
 * word, and the program would fail later for a reason that hides the typo.
 *
 * @example
 * refuseUnknownOptions('agent()', { model: 'openai:gpt-5-mini', baseURL: 'http://…' }, ['model', 'baseUrl']);
 * // TypeError: agent() has no option "baseURL". Did you mean "baseUrl"? Its options: model, baseUrl.
 */
export function refuseUnknownOptions(where: string, given: object, known: readonly string[]): void {
  for (const name of Object.keys(given)) {
    if (known.includes(name)) continue;
    const hint = didYouMean(closestNames(name, known, 1)) || didYouMean(known.filter((k) => k.toLowerCase() === name.toLowerCase()));
    throw new TypeError(`${where} has no option "${name}".${hint === '' ? '' : ` ${hint}`} Its options: ${known.join(', ')}.`);
  }
}

/**
 * A problem before the command could do its work: the CLI prints the message and the hint, and
 * exits 2 (as for its own usage errors).
 */
export function usage(message: string, hint?: string): Error {
  return Object.assign(new Error(message), hint === undefined ? {} : { hint });
}

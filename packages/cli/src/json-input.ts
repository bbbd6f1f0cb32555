import { UsageError, type IO } from './io.js';

/**
 * Read a JSON value given on the command line, or from standard input when the argument is `-`.
 * The error names where the text came from and where the JSON breaks.
 *
 * @example await readJsonArgument('{"path":"a.txt"}', io, 'arguments')
 */
export async function readJsonArgument(text: string | undefined, io: IO, what: string): Promise<unknown> {
  if (text === undefined) return {};
  const source = text === '-' ? 'standard input' : 'the command line';
  const raw = text === '-' ? await io.readStdin() : text;
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(
      `The ${what} from ${source} are not valid JSON: ${(error as Error).message}.`,
      `Pass a JSON object, e.g. '{"path": "README.md"}' (quote it for your shell), or - to read it from standard input.`,
    );
  }
}

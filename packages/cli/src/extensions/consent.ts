import type { IO } from '../io.js';

/**
 * Show what a package declares, then, on a terminal, ask before going on (default: no, so a
 * reflexive Enter changes nothing). Without a terminal (scripts, CI) or with `--yes` the lines
 * are shown and the answer is yes: the command line itself was the consent.
 *
 * @example if (!(await consent(describeDeclarations(d), 'Add it?', io, false))) return EXIT.usage;
 */
export async function consent(lines: readonly string[], question: string, io: IO, yes: boolean): Promise<boolean> {
  for (const line of lines) io.stderr.write(`${line}\n`);
  if (yes || !io.isTTY || io.stdin === undefined) return true;
  const { default: confirm } = await import('@inquirer/confirm');
  try {
    return await confirm({ message: question, default: false }, { input: io.stdin, output: (io.terminal ?? process.stderr) as NodeJS.WritableStream });
  } catch {
    // Ctrl-C or a closed terminal: no answer is not a yes.
    return false;
  }
}

import type { Command } from 'commander';
import { closestNames, didYouMean } from '@airlock/toolkit/util';
import { UsageError } from './io.js';

/**
 * For a command that runs on its own and also has subcommands (`airlock extensions` lists,
 * `airlock extensions add …` installs), made with `allowExcessArguments(true)`: commander would
 * otherwise call a word that names no subcommand "too many arguments". Throws a UsageError naming
 * the subcommands there are when `cmd` got such a word.
 *
 * @example
 * program.command('extensions').allowExcessArguments(true).action((_o, cmd) => { refuseUnknownSubcommand(cmd); … });
 */
export function refuseUnknownSubcommand(cmd: Command): void {
  const word = cmd.args[0];
  if (word === undefined || cmd.commands.length === 0) return;
  const names = cmd.commands.map((c) => c.name());
  const path = commandPath(cmd);
  throw new UsageError(`${path}: no subcommand ${JSON.stringify(word)}. ${didYouMean(closestNames(word, names))}`.trimEnd(), `Its subcommands: ${names.join(', ')} (see airlock ${path} --help).`);
}

function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c !== null && c.parent !== null; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

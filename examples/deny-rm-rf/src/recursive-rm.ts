import type { ShellCommand } from '@airlock/contract';

/** What one command is, for this policy: a recursive rm, maybe one (a word known only at run time), or neither. */
export type RmVerdict = 'recursive' | 'unknown' | 'no';

/**
 * Whether `command` removes folder trees. GNU rm reads options anywhere before `--` (`rm build -rf`
 * too), in clusters (`-fr`, `-Rv`) and as any unambiguous prefix of `--recursive` (`--rec`); a word
 * the shell only expands at run time (`rm $FLAGS x`) could be any of them.
 *
 * @example
 * rmVerdict({ name: 'rm', argv: ['rm', 'build', '-fr'], dynamicArgs: [] } as ShellCommand); // 'recursive'
 */
export function rmVerdict(command: Pick<ShellCommand, 'name' | 'argv' | 'dynamicArgs'>): RmVerdict {
  // busybox runs its first argument as the applet: `busybox rm -rf x` is rm.
  const offset = command.name === 'busybox' ? 1 : 0;
  const name = offset === 0 ? command.name : (command.argv[1] ?? '').split('/').pop();
  if (name !== 'rm') return 'no';
  let unknown = false;
  for (let i = 1 + offset; i < command.argv.length; i++) {
    const word = command.argv[i] ?? '';
    if (command.dynamicArgs.includes(i)) {
      unknown = true;
      continue;
    }
    if (word === '--') break;
    if (word.startsWith('--')) {
      if (word.length > 2 && '--recursive'.startsWith(word)) return 'recursive';
    } else if (word.startsWith('-') && /[rR]/.test(word)) {
      return 'recursive';
    }
  }
  return unknown ? 'unknown' : 'no';
}

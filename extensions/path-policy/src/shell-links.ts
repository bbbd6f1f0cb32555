import { dirname, isAbsolute } from 'node:path';
import type { SimpleCommand } from '@airlock/shell-analysis';
import type { Item } from './items.js';
import { canonicalPaths } from './paths/resolve.js';

/** A name a command of the line makes lead elsewhere: every spelling of the name, and where it leads. */
export interface Alias {
  /** Index of the command that makes it: its own files are judged as they are now. */
  command: number;
  names: string[];
  to: string;
}

/** Rounds of rewriting: a chain of links made in one line (`ln -s X a && ln -s a b`) resolves one hop per round. */
const MAX_ROUNDS = 8;

/**
 * The links and moves a command line makes (`ln -s ~/.config cfgl`, `mv a b`, `cp -s`). When
 * the policy judges the line nothing has run yet, so `cfgl/airlock/trust.json` in a later
 * command would look like a new file in the project; these aliases let it be judged as what it
 * will be.
 *
 * @example aliasesOf(analysis.commands, '/p', '/home/u') // [{ command: 0, names: ['/p/cfgl'], to: '/home/u/.config' }]
 */
export function aliasesOf(commands: readonly SimpleCommand[], cwd: string, home: string): Alias[] {
  const aliases: Alias[] = [];
  commands.forEach((c, command) => {
    for (const link of c.links) {
      const name = canonicalPaths(link.path, cwd, home);
      if (!name.ok) continue; // The write of that name is judged (and denied) as unresolvable already.
      const lexical = name.paths[0]!;
      // A symbolic link's text is read relative to the link's own folder, the rest relative to the command's.
      const base = link.kind === 'symlink' && !isAbsolute(link.target) && !link.target.startsWith('~') ? dirname(lexical) : cwd;
      const target = canonicalPaths(link.target, base, home);
      if (!target.ok || target.paths[0] === lexical) continue;
      aliases.push({ command, names: name.paths, to: target.paths[0]! });
    }
  });
  return aliases;
}

/**
 * Add to each file item the spellings it gets through the aliases other commands of the line
 * make (and those spellings' own links and real paths). More spellings only make a verdict
 * stricter: a deny on any of them denies.
 */
export function throughAliases(items: Item[], command: number, aliases: readonly Alias[], cwd: string, home: string): Item[] {
  const others = aliases.filter((a) => a.command !== command);
  if (others.length === 0) return items;
  return items.map((item) => {
    if (item.type !== 'fs' && item.type !== 'reach') return item;
    const paths = new Set(item.paths);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before = paths.size;
      for (const path of [...paths]) {
        for (const a of others) {
          const name = a.names.find((n) => path === n || path.startsWith(`${n}/`));
          if (name === undefined) continue;
          const rewritten = canonicalPaths(a.to + path.slice(name.length), cwd, home);
          if (rewritten.ok) for (const p of rewritten.paths) paths.add(p);
        }
      }
      if (paths.size === before) break;
    }
    return paths.size === item.paths.length ? item : { ...item, paths: [...paths] };
  });
}

import { dirname, isAbsolute } from 'node:path';
import type { Link, SimpleCommand } from '@airlock/shell-analysis';
import type { Item } from './items.js';
import { canonicalPaths } from './paths/resolve.js';

/** A name a command of the line makes lead elsewhere: every spelling of the name, and where it leads. */
export interface Alias {
  /** Index of the command that makes it: its own files are judged as they are now. */
  command: number;
  names: string[];
  /** Where it leads; undefined when only known at run time (`ln -s "$X" name`). */
  to: string | undefined;
  /** The link's text as written, for messages. */
  text: string;
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
      if (link.dynamic) {
        aliases.push({ command, names: name.paths, to: undefined, text: link.target });
        continue;
      }
      const target = canonicalPaths(link.target, targetBase(link, lexical, cwd), home);
      if (!target.ok || target.paths[0] === lexical) continue;
      aliases.push({ command, names: name.paths, to: target.paths[0]!, text: link.target });
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
  const under = (path: string, a: Alias) => a.names.find((n) => path === n || path.startsWith(n === '/' ? '/' : `${n}/`));
  const expand = (given: readonly string[]): { paths: string[]; unknown: Set<Alias> } => {
    const paths = new Set(given);
    const unknown = new Set<Alias>();
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before = paths.size;
      for (const path of [...paths]) {
        for (const a of others) {
          const name = under(path, a);
          if (name === undefined) continue;
          if (a.to === undefined) unknown.add(a);
          else {
            const rewritten = canonicalPaths(a.to + path.slice(name.length), cwd, home);
            if (rewritten.ok) for (const p of rewritten.paths) paths.add(p);
          }
        }
      }
      if (paths.size === before) break;
    }
    return { paths: [...paths], unknown };
  };
  return items.flatMap((item): Item[] => {
    // A program whose file use is unknown: the words it names, through the same links.
    if (item.type === 'mentions-exec') return [{ ...item, words: item.words.map((w) => ({ ...w, paths: expand(w.paths).paths })) }];
    if (item.type !== 'fs' && item.type !== 'reach') return [item];
    const { paths, unknown } = expand(item.paths);
    const judged: Item = paths.length === item.paths.length ? item : { ...item, paths };
    const given = item.type === 'fs' ? `${item.kind} ${item.given}` : item.given;
    return [
      judged,
      ...[...unknown].map(
        (a): Item => ({
          type: 'fixed',
          subject: given,
          effect: 'ask',
          rule: 'default:runtime-path',
          reason: `${given} may go through a link to ${a.text}, made earlier in the command, which leads somewhere only known when the command runs`,
        }),
      ),
    ];
  });
}

/**
 * The folder a link's target is resolved against: a symbolic link's text is read relative to the
 * link's own folder (as the kernel reads it), every other target relative to the command's.
 *
 * @example targetBase({ path: 'd/l', target: '../x', kind: 'symlink' }, '/p/d/l', '/p') // '/p/d'
 */
export function targetBase(link: Link, linkPath: string, cwd: string): string {
  return link.kind === 'symlink' && !isAbsolute(link.target) && !link.target.startsWith('~') ? dirname(linkPath) : cwd;
}

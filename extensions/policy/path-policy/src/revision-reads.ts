import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { linearRegExp } from '@airlock/toolkit/util';
import type { RevisionRead } from '@airlock/shell-analysis';
import type { Item } from './items.js';
import { SECRET_SAMPLE_NAMES } from './secrets.js';

/**
 * The top of the git repository `dir` is in: the nearest folder, going up, that holds `.git`
 * (a folder or a pointer file). Undefined outside a repository.
 */
export function repositoryTop(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * git's pathspec wildcards: `*` and `?` also match `/` (unless `:(glob)`, where only `**` does;
 * matching more is the safe side), `[…]` is a class, and a pathspec also covers what is below it.
 */
function pathspecRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        out += `[${pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < pattern.length) out += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  // The pathspec is the model's text: matched in linear time (LinearRegExp), never by backtracking.
  return linearRegExp(`^(?:${out})(?:/.*)?$`, 'is');
}

/**
 * Where a path inside git's history or index is judged: as a file, in every folder it could be
 * relative to (the top of the repository, and the folder the command runs in), so the secret
 * rules that hold for the work-tree file hold for each copy git keeps. A wildcard pathspec is
 * never expanded against the work tree (the files it picks may exist only in history): it asks
 * when it could match a secret file's name.
 */
export function revisionItems(read: RevisionRead, dir: string, home: string, fileItems: (raw: string, base: string) => Item[]): Item[] {
  if (read.glob) {
    const re = pathspecRegExp(read.path.replace(/^\.\//, ''));
    const cut = read.path.search(/[*?[]/);
    const prefix = read.path.slice(0, read.path.lastIndexOf('/', cut) + 1).replace(/^\.\//, '');
    const sample = SECRET_SAMPLE_NAMES.find((n) => re.test(n) || re.test(`${prefix}${n}`) || re.test(`${prefix}a/${n}`));
    if (sample === undefined) return [];
    return [
      {
        type: 'fixed',
        subject: `fs.read ${read.path} (in git's history)`,
        effect: 'ask',
        rule: 'default:glob-could-match-secret',
        reason: `the git pathspec ${read.path} could match a secret file such as ${sample}, in the history as well as in the folder; name the files instead`,
      },
    ];
  }
  if (read.from === 'object') {
    return [
      {
        type: 'fixed',
        subject: `fs.read git object ${read.path}`,
        effect: 'ask',
        rule: 'default:git-object-id',
        reason: `git cat-file prints the object ${read.path}, named by its id: which file it was (a deleted .env, a key) cannot be judged; name it as REV:path instead`,
      },
    ];
  }
  if (read.from === 'cwd' || isAbsolute(read.path)) return fileItems(read.path, dir);
  const from = read.dir === undefined ? dir : resolve(dir, read.dir.replace(/^~(?=\/|$)/, home));
  const top = repositoryTop(from);
  // Outside a repository git fails; judging against the folder as well keeps the path's name in view.
  return top === undefined || top === dir ? fileItems(read.path, dir) : [...fileItems(read.path, top), ...fileItems(read.path, dir)];
}

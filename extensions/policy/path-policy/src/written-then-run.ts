import type { SimpleCommand } from '@airlock/shell-analysis';
import type { Item } from './items.js';

/**
 * Programs that run the file named by one of their operands: shells, interpreters, `source`.
 * Any operand counts, since options differ per program (`deno run x.ts`, `python -u x.py`).
 */
const RUNS_FILE = /^(?:sh|bash|zsh|dash|ksh|ash|mksh|rbash|fish|csh|tcsh|pwsh|source|\.|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|tsx|ts-node|perl|ruby|php|lua|luajit|Rscript|osascript|make|gmake|expect|tclsh|wish)$/;

/** make runs the first of these in its folder (or `-C DIR`) when no `-f` names one. */
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];

/** A path as written, relative to the command's folder, as absolute spellings (link hops and target included). */
export type Resolve = (raw: string, c: SimpleCommand) => readonly string[];

/**
 * Running a file the same command line writes is dynamic code: what runs is whatever the earlier
 * step produced (`echo $X | base64 -d > .t.sh && bash .t.sh`), which no one judged. Each such run
 * asks, naming the file. Only writes the analysis sees count (redirections, cp, mv, tee, ln, …);
 * a file a program makes on its own (`tar x`, a compiler) is not known here.
 */
export function writtenThenRun(commands: readonly SimpleCommand[], resolve: Resolve): Item[] {
  // Spelling → [as written, index of the command that writes it]: a command's own output (`sed -i f`) is not what it runs.
  const written = new Map<string, [string, number]>();
  commands.forEach((c, index) => {
    for (const raw of [...c.writes, ...c.links.map((l) => l.path)]) {
      for (const key of resolve(raw, c)) if (!written.has(key)) written.set(key, [raw, index]);
    }
  });
  if (written.size === 0) return [];
  const items: Item[] = [];
  commands.forEach((c, index) => {
    if (c.argv.length === 0) return;
    const candidates: string[] = [];
    // The program itself: `./x.sh`, and `x.sh` too (a PATH with `.` in it finds the file; a file
    // named like the program it then runs is rare enough to ask about).
    candidates.push(c.argv[0]!);
    if (RUNS_FILE.test(c.name)) {
      candidates.push(...c.argv.slice(1).filter((w, i) => !c.dynamicArgs.includes(i + 1) && !/^-/.test(w)));
      // `bash < script.sh`: a shell or interpreter reading its program from a file.
      for (const r of c.redirects) if (r.kind === 'read' && r.target !== undefined) candidates.push(r.target);
    }
    if ((c.name === 'make' || c.name === 'gmake') && !c.argv.some((w) => /^(-f|--file|--makefile)/.test(w))) {
      const at = c.argv.findIndex((w) => w === '-C' || w === '--directory');
      const dir = at === -1 ? '' : `${(c.argv[at + 1] ?? '.').replace(/\/+$/, '')}/`;
      candidates.push(...MAKEFILES.map((f) => `${dir}${f}`));
    }
    for (const raw of candidates) {
      const hit = resolve(raw, c).map((key) => written.get(key)).find((w) => w !== undefined && w[1] !== index);
      if (hit === undefined) continue;
      const source = hit[0];
      items.push({
        type: 'fixed',
        subject: `exec ${c.argv.join(' ')}`,
        effect: 'ask',
        rule: 'default:runs-written-file',
        reason: `${c.argv.join(' ')} runs ${raw}, which this same command line writes (${source}): what runs is only known when the command runs, so a person decides. To run a script, write it with the write tool first (its content is then shown and logged), then run it.`,
      });
      break;
    }
  });
  return items;
}

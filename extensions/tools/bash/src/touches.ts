import type { ExecTouches } from '@airlock/contract';
import type { Analysis, SimpleCommand } from '@airlock/shell-analysis';

/**
 * Programs whose every file effect the shell analysis lists (its file operands and `-o`-style
 * options), and which run nothing else. Deliberately short: sed (`e`, `w`), awk (`system()`),
 * find (`-exec`), less (`!`), git, cp, mv, rm and anything unknown make the command a barrier.
 */
const KNOWN = new Set([
  'cat', 'tac', 'nl', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'rg', 'wc', 'sort', 'uniq', 'cut', 'paste',
  'diff', 'cmp', 'comm', 'stat', 'file', 'od', 'xxd', 'hexdump', 'base64', 'base32', 'strings', 'jq', 'ls',
  'echo', 'printf', 'true', 'false', 'pwd', 'test', '[', 'sleep', 'date', 'basename', 'dirname', 'realpath',
]);

/** Contexts whose commands may run at another time or in another way than the line says. */
const UNSURE_CONTEXTS = new Set(['background', 'function', 'nested', 'process-substitution']);

type Analyze = (command: string) => Analysis;
let analyze: Analyze | undefined;
let loading: Promise<void> | undefined;

/**
 * The parser's module, imported once for both users: two imports of it in flight at once (the
 * first call of a host, or a first parallel batch) gave the second `undefined` where extensions
 * load through jiti, and that call was denied as "command analysis failed".
 */
let shellAnalysis: Promise<typeof import('@airlock/shell-analysis')> | undefined;
const loadShellAnalysis = () => (shellAnalysis ??= import('@airlock/shell-analysis'));

/**
 * Every file a bash command reads and writes, when the shell analysis is sure of all of them;
 * undefined otherwise (the kernel then runs the call as a barrier in its batch). Sure means: it
 * parsed, every simple command is a program from a short list whose file effects the analysis
 * knows, and no word, redirect target, folder or argument list is only known at run time.
 *
 * The parser (WASM) loads on the first call, in the background; until it is ready the answer is
 * undefined, which only costs parallelism.
 *
 * @example commandTouches('grep TODO a.txt > out.txt') // { reads: ['a.txt'], writes: ['out.txt'] }
 */
export function commandTouches(command: string): ExecTouches | undefined {
  if (analyze === undefined) {
    loading ??= loadShellAnalysis()
      .then(async (mod) => {
        await mod.initShellAnalysis();
        analyze = (c) => mod.analyzeShellSync(c);
      })
      .catch(() => undefined);
    return undefined;
  }
  let analysis: Analysis;
  try {
    analysis = analyze(command);
  } catch {
    return undefined;
  }
  return touchesOf(analysis);
}

/**
 * The full shell analysis of a command line (the parser loads on the first call), for
 * `event.analyzeCommand`. Unsure (`ok: false`) for a line over the analysis' 10,000 characters.
 *
 * @example await analyzeBash('x=curl; $x evil.example') // { ok: false, reason: … }
 */
export async function analyzeBash(command: string): Promise<Analysis> {
  const mod = await loadShellAnalysis();
  return mod.analyzeShell(command);
}

/** Resolves once the parser is loaded (or failed to load): for callers that want a sure answer. */
export async function loadCommandAnalysis(): Promise<void> {
  commandTouches('true');
  await loading;
}

function touchesOf(analysis: Analysis): ExecTouches | undefined {
  if (!analysis.ok) return undefined;
  const reads: string[] = [];
  const writes: string[] = [];
  for (const c of analysis.commands) {
    if (!isSure(c)) return undefined;
    reads.push(...c.reads);
    writes.push(...c.writes, ...c.removes);
  }
  // A `~` path is the shell's home, which may not be the one this process sees.
  if ([...reads, ...writes].some((p) => p.startsWith('~'))) return undefined;
  return { reads, writes };
}

function isSure(c: SimpleCommand): boolean {
  if (c.argv.length > 0 && !KNOWN.has(c.argv[0]!)) return false;
  if (c.dynamicArgs.length + c.dynamicReads.length + c.dynamicWrites.length > 0) return false;
  if (c.unknownArgs || c.callsFunction || c.nested.length > 0 || c.cwd !== undefined) return false;
  if (c.links.length + c.gitDirs.length + c.revisionReads.length + c.wrappers.length + c.assignments.length > 0) return false;
  if (c.context.some((x) => UNSURE_CONTEXTS.has(x))) return false;
  return c.redirects.every((r) => (r.kind !== 'read' && r.kind !== 'write') || r.target !== undefined);
}

import type { Effect } from '@airlock/contract';
import type { RulePackage } from './rules/types.js';

/**
 * One thing a call touches, in the form the policy judges it. A call becomes a list of items:
 * the call itself, each file (with every spelling of it), each simple command, each host.
 */
export type Item =
  /** The call as a whole, judged by the rules that name its tool. `unknownEffects`: its tool says nobody knows what it does. */
  | { type: 'tool'; unknownEffects?: boolean }
  | {
      type: 'fs';
      kind: 'fs.read' | 'fs.write';
      given: string;
      paths: string[];
      from: ItemOrigin;
      /** Why writing it plants code, when the command line itself makes it so (a git folder created earlier in the line). */
      execConfig?: string;
    }
  | { type: 'arg-path'; given: string; paths: string[] }
  | { type: 'exec'; command: Command; from: ItemOrigin }
  /**
   * A command whose job is printing a stored credential (`gh auth token`, `git credential fill`):
   * a secret read. `certain` is false when only a word known at run time makes it one.
   */
  | { type: 'credential'; command: Command; what: string; certain: boolean }
  | { type: 'net'; host: string }
  /** A network program's host only known at run time (`curl "$URL"`): its source text. */
  | { type: 'net-runtime'; text: string }
  /**
   * A path a command removes with everything below it (`remove`, `find -delete`), or that a link
   * it creates leads to (`link`): judged only by whether it holds Airlock's own files.
   */
  | { type: 'reach'; how: 'remove' | 'find-delete' | 'link'; given: string; paths: string[] }
  /** A command whose file use is unknown (no files reported): judged by whether its text names Airlock's own files. */
  | { type: 'mentions'; command: string }
  /**
   * The same kind of command, judged by whether the paths its words name (each word as a path, and
   * the text itself) are files other programs run as code: `rsync -a x/ .git/hooks/`, `tar x -C .githooks`.
   */
  | { type: 'mentions-exec'; command: string; words: { given: string; paths: string[] }[] }
  /** Something that cannot be judged as it is: decided by the effect it carries (a default). */
  | { type: 'fixed'; subject: string; effect: Effect; rule: string; reason: string };

/**
 * Where an item came from: a declared resource's (resolved) path, its path as the model wrote it,
 * or a parsed command.
 */
export type ItemOrigin = 'resource' | 'written' | 'shell';

/** A simple command as rules see it. */
export interface Command {
  /** The words joined by single spaces, as written (argv[0] keeps its path). */
  words: string;
  /** The same with a placeholder for each word only known at run time: what allow rules match. */
  wordsForAllow: string;
  /** More spellings a deny or ask rule is tried on: the source text, argv[0] as a bare name. */
  alsoForDeny: string[];
  argv0: string;
  name: string;
  dynamic: boolean;
  wrappers: string[];
  unknownArgs: boolean;
}

/** The verdict on one item. */
export interface Finding {
  subject: string;
  effect: Effect;
  /** A rule id or surface, or `default:<name>`. */
  rule: string;
  reason: string;
  matched: MatchedRule[];
}

/** A rule that matched some item of the call (whether or not it decided). */
export interface MatchedRule {
  rule: string;
  surface: string;
  effect: Effect;
  layer?: string;
  file?: string;
  /** The package that carried the rule; `layer` and `file` then say who named the package. */
  package?: RulePackage;
  reason?: string;
  subject: string;
}

const RANK: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };

/** deny > ask > allow. */
export function stricter(a: Effect, b: Effect): boolean {
  return RANK[a] > RANK[b];
}

/** The first strictest finding (deny > ask > allow); undefined for none. */
export function strictest<T extends { effect: Effect }>(list: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const x of list) if (best === undefined || stricter(x.effect, best.effect)) best = x;
  return best;
}

import type { AccessService, AccessVerdict } from '@airlock/contract';
import { comparePaths } from './walk.js';

/**
 * The read rules, file by file, for a tool that opens many files in one call (grep over a
 * tree). The call itself was authorized for its folder; each file inside must pass the same
 * rules, or a `.env` deep in the tree is read under the folder's allow.
 *
 * A file the policy denies is skipped. A file that would need approval is skipped too — a walk
 * cannot stop to ask per file — unless the approval the call already got covers it: when the
 * folder itself needed approval under rule R (reading outside the workspace), a person said yes
 * to R for this folder, so files judged "ask" by the same R are read; any other ask is skipped.
 */

/** A file left out, root-relative with `/`. */
export interface SkippedFile {
  path: string;
  effect: 'deny' | 'ask';
  reason: string;
  rule?: string;
}

export interface SkippedDetails {
  count: number;
  denied: number;
  needsApproval: number;
  /** The first files in path order, at most DETAILS_PATHS of them. */
  paths: SkippedFile[];
}

/** Rules named in the notice; the rest are counted under "other rules". */
const NOTICE_RULES = 3;
/** Paths named per rule in the notice. */
const NOTICE_NAMES = 2;
/** Paths kept in the details, so a huge denied tree cannot bloat the result. */
const DETAILS_PATHS = 100;

export class FileGate {
  readonly #access: AccessService;
  readonly #approvedRule: string | undefined;
  readonly #verdicts = new Map<string, boolean>();
  readonly #skipped: SkippedFile[] = [];

  /**
   * @param root the folder the call was authorized for (absolute)
   * @example
   * const gate = new FileGate(ctx.access, '/work');
   * if (gate.admit('.env', '/work/.env')) read(it);
   * gate.skipped() // [{ path: '.env', effect: 'deny', reason: '…secret file…', rule: 'default:secret-read' }]
   */
  constructor(access: AccessService, root: string) {
    this.#access = access;
    const own = access.check({ kind: 'fs.read', path: root });
    this.#approvedRule = own.effect === 'ask' ? (own.rule ?? own.reason) : undefined;
  }

  /** May the tool open this file? Judged once per path; a refusal is remembered for the notice. */
  admit(path: string, absolute: string): boolean {
    const known = this.#verdicts.get(absolute);
    if (known !== undefined) return known;
    const verdict = this.#judge(absolute);
    const ok = verdict.effect === 'allow' || (verdict.effect === 'ask' && this.#approvedRule !== undefined && (verdict.rule ?? verdict.reason) === this.#approvedRule);
    this.#verdicts.set(absolute, ok);
    if (!ok) this.#skipped.push({ path, effect: verdict.effect === 'deny' ? 'deny' : 'ask', reason: verdict.reason, ...(verdict.rule === undefined ? {} : { rule: verdict.rule }) });
    return ok;
  }

  /**
   * The files skipped, in path order, each once. With `stop` (the last result a search needed)
   * files after it are dropped: an engine that listed the whole tree first and one that stopped
   * walking there must say the same.
   */
  skipped(stop?: string): SkippedFile[] {
    const seen = new Set<string>();
    const kept = this.#skipped.filter((s) => {
      if (seen.has(s.path) || (stop !== undefined && comparePaths(s.path, stop) > 0)) return false;
      seen.add(s.path);
      return true;
    });
    return kept.sort((a, b) => comparePaths(a.path, b.path));
  }

  #judge(absolute: string): AccessVerdict {
    try {
      return this.#access.check({ kind: 'fs.read', path: absolute });
    } catch (error) {
      // The service itself never throws; a broken stand-in must not open the file either.
      return { effect: 'deny', reason: `the access check failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

/**
 * The notice line, e.g. `[3 files skipped by the read rules: 2 denied (default:secret-read: .env,
 * certs/server.pem), 1 needs approval (default:read-outside-roots: link.txt). …]`.
 */
export function skippedNotice(skipped: readonly SkippedFile[], words: SkippedWords = FILE_WORDS): string {
  const n = skipped.length;
  const denied = skipped.filter((s) => s.effect === 'deny');
  const asks = skipped.filter((s) => s.effect === 'ask');
  const parts: string[] = [];
  if (denied.length > 0) parts.push(`${denied.length} denied (${byRule(denied)})`);
  if (asks.length > 0) parts.push(`${asks.length} ${asks.length === 1 ? 'needs' : 'need'} approval (${byRule(asks)})`);
  return `[${n} ${n === 1 ? words.one : words.many} ${words.left}: ${parts.join(', ')}. ${words.howTo}]`;
}

/** How a notice names what was left out and how to get at one anyway. */
export interface SkippedWords {
  one: string;
  many: string;
  /** e.g. "skipped by the read rules, not searched" */
  left: string;
  howTo: string;
}

/** grep's words: files whose contents were not searched. */
export const FILE_WORDS: SkippedWords = Object.freeze({
  one: 'file',
  many: 'files',
  left: 'skipped by the read rules, not searched',
  howTo: 'To read one anyway, use the read tool on its path: it is judged there on its own, and asks a person where the rules allow asking.',
});

/** find's words: folders whose listing was not read. */
export const FOLDER_WORDS: SkippedWords = Object.freeze({
  one: 'folder',
  many: 'folders',
  left: 'not entered, by the read rules',
  howTo: 'To see inside one anyway, use ls on it: it is judged there on its own, and asks a person where the rules allow asking.',
});

export function skippedDetails(skipped: readonly SkippedFile[]): SkippedDetails {
  return {
    count: skipped.length,
    denied: skipped.filter((s) => s.effect === 'deny').length,
    needsApproval: skipped.filter((s) => s.effect === 'ask').length,
    paths: skipped.slice(0, DETAILS_PATHS),
  };
}

function byRule(files: readonly SkippedFile[]): string {
  const groups = new Map<string, SkippedFile[]>();
  for (const f of files) {
    const key = f.rule ?? 'policy';
    const group = groups.get(key);
    if (group) group.push(f);
    else groups.set(key, [f]);
  }
  const named = [...groups].slice(0, NOTICE_RULES).map(([rule, group]) => {
    const names = group.slice(0, NOTICE_NAMES).map((f) => f.path).join(', ');
    return `${rule}: ${group.length > NOTICE_NAMES ? `${names}, …` : names}`;
  });
  const rest = groups.size - NOTICE_RULES;
  if (rest > 0) named.push(`${rest} other ${rest === 1 ? 'rule' : 'rules'}`);
  return named.join('; ');
}

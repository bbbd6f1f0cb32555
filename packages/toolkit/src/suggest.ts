/**
 * "Did you mean …?" for names: tools, rule kinds, option keys, and the files near a path that was
 * not found (the one scorer; extensions take it from `@airlock/toolkit/util`). A model or a user who types `raed`, `bsh` or `create-issue`
 * should be pointed at `read`, `bash` or `github:create_issue`; someone who types `ls` when only
 * `cd` exists should get no suggestion at all, because a wrong hint costs more than none.
 */

/** Separators that namespaced names use interchangeably (`mcp:github/create_issue`, `fs-read`). */
const SEPARATORS = /[\s_:\-/.]+/g;

// NFC: a file name typed on one system and stored decomposed on another (macOS) is the same name.
function normalize(name: string): string {
  return name.normalize('NFC').toLowerCase().replace(SEPARATORS, '_');
}

/** The last segment of a namespaced name: `mcp_github_create_issue` is searched for as `create_issue` too. */
function tailOf(normalized: string, original: string): string | undefined {
  const cut = Math.max(original.lastIndexOf(':'), original.lastIndexOf('/'));
  if (cut < 0) return undefined;
  const tail = normalize(original.slice(cut + 1));
  return tail.length > 0 && tail !== normalized ? tail : undefined;
}

/**
 * Optimal-string-alignment distance (Damerau–Levenshtein restricted to adjacent transpositions
 * that are not edited again): a swapped pair such as `raed`/`read` costs 1, not 2.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const width = b.length + 1;
  // Three rolling rows are enough: a transposition looks back two rows.
  let prev2 = new Array<number>(width).fill(0);
  let prev = Array.from({ length: width }, (_, j) => j);
  let row = new Array<number>(width).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (prev2[j - 2] ?? 0) + 1);
      }
      row[j] = best;
    }
    [prev2, prev, row] = [prev, row, prev2];
  }
  return prev[b.length] ?? 0;
}

/** Containment only counts when the shorter side says something: `e` is a prefix of half the tools. */
const MIN_CONTAINED = 3;

interface Scored {
  readonly name: string;
  readonly score: number;
  readonly distance: number;
}

function score(query: string, candidate: string): Scored | undefined {
  const q = normalize(query);
  const c = normalize(candidate);
  if (q.length === 0 || c.length === 0) return undefined;
  const tail = tailOf(c, candidate);
  const forms = tail === undefined ? [c] : [c, tail];

  const distance = Math.min(...forms.map((form) => editDistance(q, form)));
  let best = Number.POSITIVE_INFINITY;

  if (q === c) best = 0;
  else if (tail !== undefined && q === tail) best = 0.5;

  for (const form of forms) {
    const shorter = Math.min(q.length, form.length);
    if (shorter < MIN_CONTAINED) continue;
    if (form.startsWith(q) || q.startsWith(form)) best = Math.min(best, 0.9);
    else if (form.includes(q) || q.includes(form)) best = Math.min(best, 1.5);
  }

  // About one edit per three typed characters, and never a rewrite of the whole name: `ls` → `cd`
  // is two edits of two characters and says nothing.
  const allowed = Math.max(1, Math.floor(q.length / 3));
  if (distance <= allowed && distance < q.length) best = Math.min(best, distance);

  return Number.isFinite(best) ? { name: candidate, score: best, distance } : undefined;
}

/**
 * The registered names closest to `name`, best first; empty when nothing is close enough.
 * Case-insensitive; `_ - : / .` count as the same separator; a namespaced candidate also matches
 * on its last segment; a prefix or substring of at least three characters counts as close.
 *
 * @example
 * closestNames('raed', ['read', 'write', 'bash']);            // ['read']
 * closestNames('create-issue', ['github:create_issue', 'ls']); // ['github:create_issue']
 * closestNames('ls', ['cd']);                                  // []
 */
export function closestNames(name: string, candidates: Iterable<string>, max = 3): string[] {
  if (max <= 0) return [];
  const seen = new Set<string>();
  const scored: Scored[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate)) continue;
    seen.add(candidate);
    const hit = score(name, candidate);
    if (hit) scored.push(hit);
  }
  scored.sort(
    (x, y) =>
      x.score - y.score ||
      x.distance - y.distance ||
      (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
  return scored.slice(0, max).map((s) => s.name);
}

/**
 * `Did you mean "executionMode"?` for a name people typed: the closest candidates, or
 * nothing when none is close.
 *
 * @example didYouMean(['read', 'grep']) // 'Did you mean "read" or "grep"?'
 */
export function didYouMean(candidates: readonly string[]): string {
  if (candidates.length === 0) return '';
  return `Did you mean ${candidates.map((c) => JSON.stringify(c)).join(' or ')}?`;
}

import type { AccessCheck, AccessQuery, AccessRequest, AccessService, AccessVerdict } from '@airlock/contract';

/** Scopes are numbered process-wide, so two kernels never hand a check the same one. */
let scopes = 0;

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

function isEffect(value: unknown): value is keyof typeof RANK {
  return value === 'allow' || value === 'ask' || value === 'deny';
}

const NO_CHECKS: AccessVerdict = Object.freeze({ effect: 'allow', reason: 'no policy judges single files', rule: 'default:no-access-check' });

/**
 * The checks policy extensions registered for `ctx.access`, combined like votes: deny beats ask
 * beats allow, whatever the order. A check that throws or answers something that is not a verdict
 * is a deny that names it: a policy that cannot answer must not wave a file through.
 *
 * @example
 * const checks = new AccessChecks();
 * const off = checks.add('path-policy/files', ({ path }) => (path.endsWith('.env') ? { effect: 'deny', reason: 'secret' } : undefined));
 * checks.serviceFor('grep', '/work').check({ kind: 'fs.read', path: '/work/.env' }).effect // 'deny'
 */
export class AccessChecks {
  readonly #checks: { name: string; fn: AccessCheck }[] = [];

  /** Add a check; returns the function that removes it. */
  add(name: string, fn: AccessCheck): () => void {
    if (typeof fn !== 'function') throw new TypeError(`An access check must be a function (got ${typeof fn} for "${name}").`);
    const entry = { name, fn };
    this.#checks.push(entry);
    return () => {
      const i = this.#checks.indexOf(entry);
      if (i >= 0) this.#checks.splice(i, 1);
    };
  }

  get size(): number {
    return this.#checks.length;
  }

  /** The service one call's tool sees: the tool's name and the cwd are bound here, not by the tool. */
  serviceFor(tool: string, cwd: string): AccessService {
    // A class instance, not an object literal with a getter: this runs for every call.
    return new CallAccess(this, tool, cwd, ++scopes);
  }

  check(query: AccessQuery): AccessVerdict {
    if (this.#checks.length === 0) return NO_CHECKS;
    if ((query.kind !== 'fs.read' && query.kind !== 'fs.write') || typeof query.path !== 'string' || query.path === '') {
      return { effect: 'deny', reason: `ctx.access.check needs {kind: "fs.read" | "fs.write", path: "<non-empty path>"}; got ${describe(query as unknown as AccessRequest)}`, rule: 'default:invalid-access-request' };
    }
    let best: AccessVerdict | undefined;
    let also: AccessVerdict[] | undefined;
    for (const { name, fn } of this.#checks) {
      let verdict: AccessVerdict;
      try {
        const answer = fn(query);
        if (answer === undefined) continue;
        if (answer === null || typeof answer !== 'object' || !isEffect(answer.effect) || typeof (answer as { then?: unknown }).then === 'function') {
          verdict = { effect: 'deny', reason: `the access check "${name}" answered ${describeAnswer(answer)}, not {effect, reason}: denied to be safe`, rule: `${name}:invalid` };
        } else {
          verdict = { effect: answer.effect, reason: typeof answer.reason === 'string' ? answer.reason : `${answer.effect} by ${name}`, ...(answer.rule === undefined ? {} : { rule: String(answer.rule) }) };
        }
      } catch (error) {
        verdict = { effect: 'deny', reason: `the access check "${name}" failed on ${query.path}: ${error instanceof Error ? error.message : String(error)}`, rule: `${name}:failed` };
      }
      if (best === undefined || RANK[verdict.effect] > RANK[best.effect]) {
        best = verdict;
        also = undefined;
      } else if (verdict.effect === best.effect && verdict.rule !== best.rule) (also ??= []).push(verdict);
      if (best.effect === 'deny') return best;
    }
    if (best === undefined) return { effect: 'allow', reason: 'no access check had an opinion', rule: 'default:no-opinion' };
    // Two checks asking under different rules: the verdict names both, so an approval given
    // under one of them (see FileGate) is not taken to cover the other.
    if (also === undefined) return best;
    const all = [best, ...also];
    return { effect: best.effect, reason: all.map((v) => v.reason).join('; '), rule: all.map((v) => v.rule ?? '?').join(' + ') };
  }
}

function describe(request: AccessRequest | undefined): string {
  try {
    return JSON.stringify(request) ?? String(request);
  } catch {
    return String(request);
  }
}

function describeAnswer(answer: unknown): string {
  if (answer !== null && typeof answer === 'object' && typeof (answer as { then?: unknown }).then === 'function') return 'a Promise (checks must be synchronous)';
  return describe(answer as AccessRequest);
}

/** `ctx.access` for one call: the tool's name, the cwd and the scope are bound, not passed by the tool. */
class CallAccess implements AccessService {
  readonly #checks: AccessChecks;
  readonly #tool: string;
  readonly #cwd: string;
  readonly #scope: number;

  constructor(checks: AccessChecks, tool: string, cwd: string, scope: number) {
    this.#checks = checks;
    this.#tool = tool;
    this.#cwd = cwd;
    this.#scope = scope;
  }

  get active(): boolean {
    return this.#checks.size > 0;
  }

  // An own function, so a tool may pass `ctx.access.check` around unbound.
  check = (request: AccessRequest): AccessVerdict =>
    this.#checks.check({ kind: request?.kind, path: request?.path, tool: this.#tool, cwd: this.#cwd, scope: this.#scope } as AccessQuery);
}

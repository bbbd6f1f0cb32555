/**
 * Checking a request's params against its method's schema (the compiled TypeBox check), and the
 * -32602 message when they do not match: each bad field, and an example of what to send.
 */
import { Compile } from 'typebox/compile';
import { RPC_ERRORS, RpcError } from './protocol.js';
import { METHODS, type MethodName, type ParamsOf } from './schemas.js';

type Checker = ReturnType<typeof Compile>;
const checkers = new Map<MethodName, Checker>();

function checkerFor(method: MethodName): Checker {
  let checker = checkers.get(method);
  if (checker === undefined) {
    checker = Compile(METHODS[method].params);
    checkers.set(method, checker);
  }
  return checker;
}

/**
 * The params of a request to `method`, checked; absent params count as `{}`. Throws an RpcError
 * (-32602) that names every problem and shows valid params.
 *
 * @example
 * checkParams('tools/call', { name: 'read', arguments: { path: 'a' } }); // ok, typed
 * checkParams('tools/call', { nam: 'read' }); // throws: Invalid params for tools/call: unknown field "nam"; name is required …
 */
export function checkParams<M extends MethodName>(method: M, params: unknown): ParamsOf<M> {
  const value = params === undefined ? {} : params;
  const checker = checkerFor(method);
  if (checker.Check(value)) return value as ParamsOf<M>;
  const problems = describe(checker.Errors(value) as unknown as TypeBoxError[]);
  throw new RpcError(RPC_ERRORS.invalidParams, `Invalid params for ${method}: ${problems.join('; ')}. Send params like ${METHODS[method].example}.`, { problems });
}

interface TypeBoxError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** TypeBox's errors in a person's words: one line per bad field, unions of constants as "one of". */
function describe(errors: readonly TypeBoxError[]): string[] {
  const out: string[] = [];
  const allowed = new Map<string, unknown[]>();
  for (const e of errors) {
    const at = e.instancePath === '' ? 'params' : e.instancePath.slice(1).replace(/\//g, '.');
    switch (e.keyword) {
      case 'boolean': // "schema is false" for each extra field; the additionalProperties error names them all
      case 'anyOf':
        break;
      case 'const': {
        const list = allowed.get(at) ?? [];
        list.push(e.params['allowedValue']);
        allowed.set(at, list);
        break;
      }
      case 'additionalProperties': {
        const extra = (e.params['additionalProperties'] as string[] | undefined) ?? [];
        out.push(`${at}: unknown field${extra.length === 1 ? '' : 's'} ${extra.map((f) => JSON.stringify(f)).join(', ')}`);
        break;
      }
      case 'required': {
        const missing = (e.params['requiredProperties'] as string[] | undefined) ?? [];
        out.push(missing.length > 0 ? `${at}: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required` : `${at}: ${e.message}`);
        break;
      }
      default:
        out.push(`${at}: ${e.message}`);
    }
  }
  for (const [at, values] of allowed) out.push(`${at}: must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
  return out.length > 0 ? out : ['params do not match the schema'];
}

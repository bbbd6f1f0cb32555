/**
 * The "Methods" part of docs/rpc.md, rendered from the TypeBox schemas in schemas.ts, so the page
 * cannot drift from what the server checks. `pnpm --filter @airlock/serve docs:rpc` rewrites the
 * page; packages/serve/test/rpc-doc.test.ts fails while the page and the schemas differ.
 */
import { METHODS, SERVER_MESSAGES } from './schemas.js';

export const START = '<!-- rpc-schemas:start (generated from packages/serve/src/rpc/schemas.ts by packages/serve/scripts/rpc-doc.mjs; do not edit) -->';
export const END = '<!-- rpc-schemas:end -->';

const json = (schema: unknown): string => ['```json', JSON.stringify(schema, null, 2), '```'].join('\n');

/**
 * Every method's params and result as JSON Schema, then the server's own requests and notifications.
 *
 * @example
 * renderRpcSchemas().split('\n')[0]; // '### Methods a client calls'
 */
export function renderRpcSchemas(): string {
  const out: string[] = ['### Methods a client calls', ''];
  for (const [name, spec] of Object.entries(METHODS)) {
    out.push(`#### \`${name}\``, '', spec.summary, '', `Example params: \`${spec.example}\``, '', 'params:', '', json(spec.params), '', 'result:', '', json(spec.result), '');
  }
  out.push('### Messages the server sends', '');
  for (const [name, spec] of Object.entries(SERVER_MESSAGES)) {
    out.push(`#### \`${name}\` (${spec.kind === 'request' ? 'a request: answer it with the same id' : 'a notification: no answer'})`, '', spec.summary, '', 'params:', '', json(spec.params), '');
    if ('result' in spec) out.push('result (what the client answers):', '', json(spec.result), '');
  }
  return out.join('\n').trimEnd();
}

/** `doc` with the text between the markers replaced; throws when a marker is missing. */
export function withRpcSchemas(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/rpc.md lacks the markers ${START} … ${END}: put them back where the method schemas go`);
  return `${doc.slice(0, start + START.length)}\n${renderRpcSchemas()}\n${doc.slice(end)}`;
}

// The method schemas in docs/rpc.md, rendered from the server's TypeBox schemas (see
// src/rpc/doc-schemas.ts). `node scripts/rpc-doc.mjs --write` (after `tsc -b`) rewrites the page;
// without --write it only says whether the page is up to date (exit code 1 when it is not).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const RPC_DOC = fileURLToPath(new URL('../../../docs/rpc.md', import.meta.url));
const { withRpcSchemas } = await import('../dist/rpc/doc-schemas.js');
const doc = readFileSync(RPC_DOC, 'utf8');
const next = withRpcSchemas(doc);
if (!process.argv.includes('--write')) {
  process.stdout.write(next === doc ? 'docs/rpc.md is up to date\n' : 'docs/rpc.md is out of date: run with --write\n');
  process.exitCode = next === doc ? 0 : 1;
} else if (next !== doc) {
  writeFileSync(RPC_DOC, next);
  process.stdout.write('docs/rpc.md: method schemas rewritten\n');
}

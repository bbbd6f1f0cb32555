import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { METHODS, SERVER_MESSAGES, withRpcSchemas } from '../src/index.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/rpc.md', import.meta.url)), 'utf8');
const client = readFileSync(fileURLToPath(new URL('../../../examples/rpc-python/client.py', import.meta.url)), 'utf8');

describe('docs/rpc.md', () => {
  it('shows the method schemas the server checks (regenerate: pnpm --filter @airlock/serve docs:rpc)', () => {
    expect(withRpcSchemas(doc)).toBe(doc);
  });

  it('documents every method and every message the server sends', () => {
    for (const name of [...Object.keys(METHODS), ...Object.keys(SERVER_MESSAGES)]) expect(doc).toContain(`#### \`${name}\``);
  });

  it('shows the Python client that CI runs, verbatim', () => {
    expect(doc).toContain(`\`\`\`python\n${client}\`\`\``);
    expect(client.trim().split('\n').length).toBeLessThanOrEqual(40);
  });
});

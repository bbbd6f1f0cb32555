import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestHost } from '@airlock/kernel/testing';
import { type AccessCheck } from '@airlock/contract';
import { tree as makeTree } from '../../../lib/tool-common/test/support/tree.js';
import { createFindTool, findFd, type FindDetails } from '../src/index.js';

/**
 * find shows names, never contents: a secret file's name is listed (as ls lists it). A folder's
 * listing is what reading the folder gives, so a folder the read rules refuse is not entered.
 */

const tree = (files: Record<string, string>) => makeTree(files, 'airlock-find-rules-');

/** Reading anything under a folder named "private" (or the folder itself) is denied; "vendor" asks. */
const rules: AccessCheck = ({ path }) => {
  if (/\/private(\/|$)/.test(path)) return { effect: 'deny', reason: `${path} is private`, rule: 'fs.read(**/private/**)' };
  if (/\/vendor(\/|$)/.test(path)) return { effect: 'ask', reason: `${path} is vendored`, rule: 'fs.read(**/vendor/**)' };
  return undefined;
};

async function find(t: { base: string; root: string }, engine: 'node' | 'fd', args: Record<string, unknown>, checks: AccessCheck[] = [rules]) {
  const { kernel, services } = createTestHost({ cwd: t.root, spill: { dir: join(t.base, 'spill') } });
  checks.forEach((check, i) => services.access.add(`check-${i + 1}`, check));
  kernel.registry.register(createFindTool({ engine }), { source: 'sdk' });
  const message = await kernel.executeToolCall({ id: '1', name: 'find', arguments: args });
  const text = message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { text, details: message.details as FindDetails };
}

const engines: ('node' | 'fd')[] = findFd() ? ['node', 'fd'] : ['node'];

describe.each(engines)('find (%s engine) and the read rules', (engine) => {
  it('does not enter a folder the rules refuse, and says so; names elsewhere are listed, secrets included', async () => {
    const t = tree({ 'a.txt': 'x', '.env': 'TOKEN=1', 'private/plan.txt': 'x', 'private/deep/x.txt': 'x', 'src/vendor/lib.js': 'x', 'src/b.txt': 'x' });
    const { text, details } = await find(t, engine, { pattern: '*' });
    expect(text).toBe(
      '.env\na.txt\nsrc/\nsrc/b.txt\n\n[2 folders not entered, by the read rules: 1 denied (fs.read(**/private/**): private), ' +
        '1 needs approval (fs.read(**/vendor/**): src/vendor). To see inside one anyway, use ls on it: it is judged there on its own, and asks a person where the rules allow asking.]',
    );
    expect(text).not.toContain('TOKEN=1');
    expect(details.skipped).toMatchObject({ count: 2, denied: 1, needsApproval: 1 });
  });

  it('with no check registered, every folder is listed', async () => {
    const t = tree({ 'private/plan.txt': 'x' });
    const { text, details } = await find(t, engine, { pattern: '*.txt' }, []);
    expect(text).toBe('private/plan.txt');
    expect(details.skipped).toBeUndefined();
  });
});

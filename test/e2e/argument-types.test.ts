import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { scaledMs } from '@airlock/kernel/testing';
import { BIN, ROOT, sandbox } from './harness.js';
import { connect, textOf } from './mcp-harness.js';

/**
 * One rule for argument types, whatever door a call comes through (docs/kernel.md, "Argument
 * types"): a string that spells a number or a boolean is read as one, since models often quote
 * scalars; nothing else changes type. A number where a path string belongs is a model error and
 * ends `invalid`, naming the parameter, instead of reading a file called "7".
 */
const CASES: { args: Record<string, unknown>; outcome: 'ok' | 'invalid'; text: string }[] = [
  { args: { path: 7 }, outcome: 'invalid', text: 'path: expected a string, got 7' },
  { args: { path: 'notes.txt', offset: '2' }, outcome: 'ok', text: 'two' },
  { args: { path: 'notes.txt', offset: '' }, outcome: 'invalid', text: 'offset: expected an integer ≥ 1, got ""' },
  { args: { path: 'notes.txt', offset: '1.5' }, outcome: 'invalid', text: 'offset: expected an integer ≥ 1, got "1.5"' },
  { args: { path: 'notes.txt', limit: true }, outcome: 'invalid', text: 'limit: expected an integer ≥ 1, got true' },
];

interface Seen {
  outcome: string;
  text: string;
}

/** A project where a file named "7" exists: reading it by mistake would be visible. */
function project() {
  const s = sandbox();
  s.write('project/notes.txt', 'one\ntwo\nthree\n');
  s.write('project/7', 'the file named 7\n');
  return s;
}

function expectTable(seen: Seen[]): void {
  expect(seen.map((r) => r.outcome)).toEqual(CASES.map((c) => c.outcome));
  CASES.forEach((c, i) => {
    expect(seen[i]!.text).toContain(c.text);
    expect(seen[i]!.text).not.toContain('the file named 7');
  });
  // "2" read as 2: the read starts at the second line.
  expect(seen[1]!.text.startsWith('two')).toBe(true);
}

const messageText = (m: { content: { type: string; text?: string }[] }): string => m.content.map((c) => c.text ?? '').join('');

describe('argument types: the same rule through every door', () => {
  it('airlock call', async () => {
    const s = project();
    const seen: Seen[] = [];
    for (const c of CASES) {
      const r = await s.airlock(['--json', 'call', 'read', JSON.stringify(c.args)]);
      const m = JSON.parse(r.stdout) as { outcome: string; content: { type: string; text?: string }[] };
      seen.push({ outcome: m.outcome, text: messageText(m) });
    }
    expectTable(seen);
  });

  it('airlock batch', async () => {
    const s = project();
    s.write('project/calls.json', CASES.map((c) => ({ name: 'read', arguments: c.args })));
    const r = await s.airlock(['--json', 'batch', 'calls.json']);
    const messages = JSON.parse(r.stdout) as { outcome: string; content: { type: string; text?: string }[] }[];
    expectTable(messages.map((m) => ({ outcome: m.outcome, text: messageText(m) })));
  });

  it('MCP (airlock mcp, tools/call): an invalid call is an error result with the same words', async () => {
    const s = project();
    const { client } = await connect(s);
    const seen: Seen[] = [];
    for (const c of CASES) {
      const result = await client.callTool({ name: 'read', arguments: c.args });
      seen.push({ outcome: result.isError === true ? 'invalid' : 'ok', text: textOf(result) });
    }
    expectTable(seen);
  });

  it('JSON-RPC (airlock serve --stdio, tools/call)', async () => {
    const s = project();
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: `${s.home}/.config`, NO_COLOR: '1' };
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'serve', '--stdio'], { cwd: s.project, env, stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill('SIGKILL'));
    const answers = new Map<number, { outcome: string; content: { type: string; text?: string }[] }>();
    let rest = '';
    const all = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          const m = JSON.parse(line) as { id?: number; result?: { outcome: string; content: { type: string; text?: string }[] } };
          if (typeof m.id === 'number' && m.result !== undefined) answers.set(m.id, m.result);
        }
        if (answers.size === CASES.length) resolve();
      });
    });
    CASES.forEach((c, id) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read', arguments: c.args } })}\n`));
    await all;
    expectTable(CASES.map((_, id) => ({ outcome: answers.get(id)!.outcome, text: messageText(answers.get(id)!) })));
  });

  it('SDK (createAirlock from the built package, execute)', () => {
    const s = project();
    const script = join(s.base, 'sdk-calls.mjs');
    writeFileSync(
      script,
      [
        `const { createAirlock } = await import(${JSON.stringify(join(ROOT, 'packages/sdk/dist/index.js'))});`,
        `const airlock = await createAirlock({ cwd: ${JSON.stringify(s.project)} });`,
        `for (const [i, args] of ${JSON.stringify(CASES.map((c) => c.args))}.entries()) {`,
        "  const m = await airlock.execute({ id: 'c' + i, name: 'read', arguments: args });",
        "  console.log(JSON.stringify({ outcome: m.outcome, text: m.content.map((c) => c.text ?? '').join('') }));",
        '}',
        'await airlock.close();',
      ].join('\n'),
    );
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: `${s.home}/.config`, NO_COLOR: '1' };
    const run = spawnSync(process.execPath, [script], { cwd: s.project, env, encoding: 'utf8', timeout: scaledMs(60_000) });
    expect(run.status, run.stderr).toBe(0);
    expectTable(run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Seen));
  });
});

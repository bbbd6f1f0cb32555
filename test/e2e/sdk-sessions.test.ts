import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 28 §2 and §3 through the doors a user takes: a program built on the SDK's dist records a
 * session with an agent (one of its tools written in the program), then the `airlock` binary
 * lists it, replays it and says why the in-code tool cannot be judged, and the audit log tells
 * the replayed calls from the recorded ones.
 */

const boxes: ReturnType<typeof sandbox>[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) rmSync(box.base, { recursive: true, force: true });
});

function program(box: ReturnType<typeof sandbox>, state: string): string {
  const file = join(box.base, 'agent.mjs');
  const env = { HOME: box.home, XDG_CONFIG_HOME: join(box.home, '.config'), XDG_STATE_HOME: state, PATH: process.env.PATH };
  writeFileSync(
    file,
    [
      `import { createAirlock, defineExtension, defineTool, scriptedProvider, Type } from ${JSON.stringify(join(ROOT, 'packages/sdk/dist/index.js'))};`,
      'const deployer = defineExtension({ name: "deployer", setup(api) {',
      '  api.registerTool(defineTool({ name: "deploy", label: "Deploy", description: "Deploy a target.", parameters: Type.Object({ target: Type.String() }),',
      '    resources: () => [], execute: async (_id, p) => ({ content: [{ type: "text", text: `deployed ${p.target}` }] }) }));',
      '} });',
      `const airlock = await createAirlock({ cwd: ${JSON.stringify(box.project)}, env: ${JSON.stringify(env)}, homeDir: ${JSON.stringify(box.home)}, transcript: true, extensions: [deployer] });`,
      'const turn = { content: [{ type: "toolCall", id: "call_1", name: "deploy", arguments: { target: "staging" } }, { type: "toolCall", id: "call_2", name: "read", arguments: { path: "notes.txt" } }] };',
      'const agent = airlock.agent({ provider: scriptedProvider([turn, "Deployed."]), model: "demo" });',
      'const result = await agent.prompt("Deploy to staging and read the notes");',
      'console.log(JSON.stringify({ status: result.status, id: agent.transcript.id, outcomes: result.messages.filter((m) => m.role === "toolResult").map((m) => m.outcome) }));',
      'await airlock.close();',
    ].join('\n'),
  );
  return file;
}

describe('an SDK session, recorded by a program and replayed by the airlock binary', () => {
  it('is listed; replay names the in-code tool and its extension instead of a bare not_found; replayed audit records are marked', async () => {
    const box = sandbox();
    boxes.push(box);
    const state = join(box.home, '.local', 'state');
    const env = { XDG_STATE_HOME: state };
    box.write('project/notes.txt', 'plain notes\n');
    const run = spawnSync(process.execPath, [program(box, state)], { encoding: 'utf8', timeout: scaledMs(60_000) });
    expect(run.status, run.stderr).toBe(0);
    const recorded = JSON.parse(run.stdout) as { status: string; id: string; outcomes: string[] };
    expect(recorded).toMatchObject({ status: 'done', outcomes: ['ok', 'ok'] });

    const list = await box.airlock(['sessions'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(recorded.id);

    const replay = await box.airlock(['replay', recorded.id], { env });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/^1\s+deploy\s+\{"target":"staging"\}\s+ok\s+NOT HERE\s+code "deployer"/m);
    expect(replay.stdout).toContain('Session ' + recorded.id + ': 0 of 2 recorded calls would now be decided differently');
    expect(replay.stdout).toContain('Not judged: 1 call of "deploy", a tool the program that recorded the session passed in code (extension "deployer"); the CLI does not have that code.');
    expect(replay.stdout).not.toContain('not_found');
    expect(replay.stderr).toContain('the extension "deployer" 0.0.0 was loaded when the session was recorded and is not loaded now (it was passed in code to createAirlock');
    // A call nobody could judge is not proof that nothing changed.
    expect((await box.airlock(['replay', '--strict', recorded.id], { env })).code).toBe(1);

    // The read ran again (replay-safe): its records carry the recorded id, marked as a replay of this session.
    const auditRoot = join(state, 'airlock', 'audit');
    const log = readFileSync(join(auditRoot, readdirSync(auditRoot)[0]!, 'audit.jsonl'), 'utf8');
    const records = log.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; toolCallId?: string });
    const ids = records.filter((r) => r.type === 'result').map((r) => r.toolCallId);
    expect(ids.filter((id) => id === 'call_2')).toHaveLength(1);
    expect(ids.filter((id) => id === `replay:${recorded.id}:call_2`)).toHaveLength(2);
  }, scaledMs(150_000));
});

// Sandbox bench worker: one subject in this process; see main.mjs for the spec.
//
// side "airlock": opens a host from spec.root (this tree, or a second worktree for the "before"
//   subject) and times `bash <command>` through host.execute, split into steps by watching it from
//   outside: the bash tool's execute is wrapped (decision before it, result hooks after it), the
//   sandbox's wrap and release are timed through the ToolContext the tool gets, and
//   child_process.spawn is wrapped to stamp the spawn call, the shell's exit and the pipes' close.
//   Nothing in the product is changed for this.
// side "pi": Pi's bash tool, tool.execute only (no loop), as in the tools bench.
// side "raw": `bash -c <command>` spawned bare from Node. The airlock side also times its last
//   command line (bubblewrap and all) spawned bare: the floor under the tool.

import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureRuns, workerMain } from '../lib/harness.mjs';

/** Stamps of the call under way (undefined between calls). */
let stamps;
const now = () => performance.now();

/** Every spawn stamps its call and its child's exit and close: the tool's runCommand spawns once per call. */
function watchSpawn() {
  const original = childProcess.spawn;
  childProcess.spawn = function spawn(...args) {
    const s = stamps;
    const t0 = now();
    const child = original.apply(this, args);
    if (s !== undefined && s.spawnStart === undefined) {
      s.spawnStart = t0;
      s.spawnReturned = now();
      s.line = { file: args[0], args: args[1], options: args[2] };
      child.once('exit', () => (s.exit = now()));
      child.once('close', () => (s.close = now()));
    }
    return child;
  };
  syncBuiltinESMExports();
}

/** ctx with its sandbox's wrap and the command's release timed. */
function timedContext(ctx, s) {
  const sandbox = ctx.sandbox;
  if (sandbox === undefined) return ctx;
  const timed = {
    get status() {
      return sandbox.status;
    },
    async wrap(argv, options) {
      s.wrapStart = now();
      const cmd = await sandbox.wrap(argv, options);
      s.wrapEnd = now();
      return {
        ...cmd,
        hint: (output) => cmd.hint(output),
        release: async () => {
          s.releaseStart ??= now();
          const note = await cmd.release();
          s.releaseEnd ??= now();
          return note;
        },
      };
    },
  };
  return new Proxy(ctx, { get: (target, key) => (key === 'sandbox' ? timed : Reflect.get(target, key)) });
}

function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function airlockSide(spec) {
  watchSpawn();
  const { openHost } = await import(pathToFileURL(path.join(spec.root, 'packages/host/dist/index.js')).href);
  const home = spec.home;
  const tOpen = now();
  const host = await openHost({ cwd: spec.workspace, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR }, homeDir: home });
  const openMs = now() - tOpen;
  if (host.blocked) throw new Error(`host blocked: ${host.blocked.message}`);
  const bash = host.kernel.registry.get('bash').tool;
  const execute = bash.execute;
  bash.execute = async function (id, params, signal, onUpdate, ctx) {
    const s = stamps;
    s.toolStart = now();
    try {
      return await execute.call(this, id, params, signal, onUpdate, timedContext(ctx, s));
    } finally {
      s.toolEnd = now();
    }
  };
  let seq = 0;
  const calls = [];
  const once = async () => {
    const s = (stamps = {});
    s.start = now();
    const m = await host.execute({ id: `s${++seq}`, name: 'bash', arguments: { command: spec.command } });
    s.end = now();
    stamps = undefined;
    if (m.isError === true) throw new Error(`bash failed: ${textOf(m).slice(0, 300)}`);
    calls.push(s);
    return s;
  };
  // The first call loads code lazily (shell analysis, path-policy); on a loaded machine a handler
  // can time out there once. Timed calls get no second try.
  let first;
  for (let attempt = 1; first === undefined; attempt++) {
    try {
      first = await once();
    } catch (error) {
      if (attempt >= 3) throw error;
      process.stderr.write(`first call failed, again: ${error.message.slice(0, 200)}\n`);
    }
  }
  calls.length = 0;
  await measureRuns({ prepare: () => ({}), run: once, warmup: spec.warmup, minReps: spec.reps, maxReps: spec.reps, budgetMs: 0, gcBetweenReps: spec.gc });
  // The floor under the tool: its last command line (launcher, bubblewrap, limits prelude,
  // shell) spawned bare, while the host (and the sandbox's private folder) is still open.
  const line = calls.at(-1)?.line;
  const raw = line === undefined ? [] : await timeSpawns(spec, () => spawnClosed(line.file, line.args, { cwd: spec.workspace, env: line.options.env, detached: true }));
  await host.close();
  return { openMs, first: steps(first), calls: calls.slice(-spec.reps).map(steps), sandboxed: first.wrapStart !== undefined, raw };
}

/** A call's stamps as step durations in ms (undefined where the step did not happen). */
function steps(s) {
  const d = (a, b) => (a === undefined || b === undefined ? undefined : b - a);
  const closed = Math.max(s.exit ?? 0, s.close ?? 0) || undefined;
  return {
    total: d(s.start, s.end),
    decision: d(s.start, s.toolStart),
    wrap: d(s.wrapStart, s.wrapEnd),
    spawnCall: d(s.spawnStart, s.spawnReturned),
    spawnToExit: d(s.spawnReturned, s.exit),
    exitToClose: d(s.exit, s.close),
    // Unsandboxed there is no release: post-exit then runs to the tool's end (result text included).
    postExit: d(closed, s.releaseStart ?? s.toolEnd),
    release: d(s.releaseStart, s.releaseEnd),
    result: d(s.releaseEnd, s.toolEnd),
    resultHooks: d(s.toolEnd, s.end),
    beforeWrap: d(s.toolStart, s.wrapStart ?? s.spawnStart),
    wrapToSpawn: d(s.wrapEnd, s.spawnStart),
  };
}

async function piSide(spec) {
  const { pca } = await import('../peer/pi.mjs');
  const tool = pca.createBashTool(spec.workspace);
  const totals = [];
  const once = async () => {
    const t0 = now();
    await tool.execute('p', { command: spec.command });
    totals.push(now() - t0);
  };
  await once();
  totals.length = 0;
  await measureRuns({ prepare: () => ({}), run: once, warmup: spec.warmup, minReps: spec.reps, maxReps: spec.reps, budgetMs: 0, gcBetweenReps: spec.gc });
  return { calls: totals.slice(-spec.reps).map((total) => ({ total })) };
}

function spawnClosed(file, args, options) {
  return new Promise((resolve, reject) => {
    const child = childProcess.spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))));
  });
}

async function timeSpawns(spec, run) {
  const totals = [];
  const once = async () => {
    const t0 = now();
    await run();
    totals.push(now() - t0);
  };
  await once();
  await measureRuns({ prepare: () => ({}), run: once, warmup: spec.warmup, minReps: spec.reps, maxReps: spec.reps, budgetMs: 0, gcBetweenReps: spec.gc });
  return totals.slice(-spec.reps).map((total) => ({ total }));
}

/** `bash -c <command>` spawned bare from Node. */
async function rawSide(spec) {
  return { calls: await timeSpawns(spec, () => spawnClosed('bash', ['-c', spec.command], { cwd: spec.workspace })) };
}

workerMain(async (spec) => {
  fs.mkdirSync(spec.workspace, { recursive: true });
  if (spec.side === 'airlock') return airlockSide(spec);
  if (spec.side === 'pi') return piSide(spec);
  if (spec.side === 'raw') return rawSide(spec);
  throw new Error(`unknown side ${spec.side}`);
});

// Tools bench worker: one (workload, subject) in this process; see main.mjs for the spec.
//
// side "airlock": opens a host the way the product does (packages/host/dist, default extension
//   set, empty HOME) and times host.execute({ id, name, arguments }) — the whole kernel pipeline
//   (validation, hooks, normalization) plus the tool. Subject "airlock.direct" times the tool's
//   own execute(id, args, signal, onUpdate, ctx) with a ToolContext captured from the kernel.
// side "pi": Pi's createXTool(cwd) from the pinned peer install, timed as tool.execute(id, args)
//   with no loop, no validation, no hooks (like shared/research/pi-bench.md).
// side "shell": the raw command, spawned with bash -c, output to /dev/null.
// Subject "airlock.node": like "airlock", with grep and find forced onto their pure-Node engines
//   (a user settings file in spec.home, written by main.mjs), to compare them with rg/fd and Pi.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { captureProcessWarnings, measureRuns, peakRssMB, rssMB, workerMain } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

/** Text of a tool result (Airlock message or Pi result), for checks. */
function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function openAirlock(spec) {
  // spec.root: another built tree (--base), measured in the same run as this one.
  const { openHost } = await import(pathToFileURL(path.join(spec.root ?? ROOT, 'packages/host/dist/index.js')).href);
  const home = spec.home;
  // 'airlock.noseccomp': the same sandbox without its seccomp filter (an architecture it has no
  // program for), so the filter's own cost shows next to the 'airlock' row in one run.
  const unfiltered = spec.subject === 'airlock.noseccomp' ? { sandboxArch: 'no-seccomp-filter' } : {};
  const host = await openHost({ cwd: spec.workspace, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR }, homeDir: home, ...unfiltered });
  if (host.blocked) throw new Error(`host blocked: ${host.blocked.message}`);
  for (const name of ['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls']) if (!host.kernel.registry.get(name)) throw new Error(`tool ${name} is not loaded`);
  return host;
}

/** A ToolContext as the kernel builds it, captured by a one-off probe tool (for airlock.direct). */
async function captureContext(host) {
  let ctx;
  host.kernel.registry.register(
    { name: 'bench_ctx_probe', label: 'probe', description: 'bench probe', parameters: { type: 'object', properties: {} }, execute: async (_id, _a, _s, _u, c) => { ctx = c; return { content: [{ type: 'text', text: 'ok' }] }; } },
    { source: 'sdk' },
  );
  // The host only runs the tools of its selection, so the probe goes to the kernel itself.
  const m = await host.kernel.executeToolCall({ id: 'probe', name: 'bench_ctx_probe', arguments: {} }, {});
  if (!ctx) throw new Error(`could not capture a ToolContext: ${JSON.stringify(m).slice(0, 300)}`);
  return ctx;
}

function runShell(command) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ content: [{ type: 'text', text: `exit ${code}` }] }) : reject(new Error(`exit ${code}`))));
  });
}

workerMain(async (spec) => {
  const warnings = captureProcessWarnings();
  const t0 = performance.now();
  let call; // (toolName, args, id) => Promise<{ text, isError, engine? }>
  let close = async () => {};
  if (spec.side === 'pi') {
    const { pca } = await import('../peer/pi.mjs');
    const factories = { read: pca.createReadTool, write: pca.createWriteTool, edit: pca.createEditTool, bash: pca.createBashTool, grep: pca.createGrepTool, find: pca.createFindTool, ls: pca.createLsTool };
    const tools = new Map();
    call = async (name, args, id) => {
      let tool = tools.get(name);
      if (!tool) tools.set(name, (tool = factories[name](spec.workspace)));
      try {
        const r = await tool.execute(id, args);
        return { text: textOf(r), isError: false };
      } catch (error) {
        return { text: String(error?.message ?? error), isError: true };
      }
    };
  } else if (spec.side === 'airlock') {
    const host = await openAirlock(spec);
    close = () => host.close();
    if (spec.subject === 'airlock.direct') {
      const ctx = await captureContext(host);
      call = async (name, args, id) => {
        const tool = host.kernel.registry.get(name).tool;
        try {
          const r = await tool.execute(id, tool.prepareArguments ? tool.prepareArguments(args) : args, undefined, undefined, ctx);
          return { text: textOf(r), isError: r?.isError === true, engine: r?.details?.engine };
        } catch (error) {
          return { text: String(error?.message ?? error), isError: true };
        }
      };
    } else {
      call = async (name, args, id) => {
        const m = await host.execute({ id, name, arguments: args });
        return { text: textOf(m), isError: m.isError === true, engine: m.details?.engine };
      };
    }
  } else if (spec.side === 'shell') {
    call = async (_name, args) => {
      const r = await runShell(args.command);
      return { text: textOf(r), isError: false };
    };
  } else throw new Error(`unknown side ${spec.side}`);
  const importMs = performance.now() - t0;
  const rssAfterImportMB = rssMB();

  // Per-worker scratch folder inside the workspace (edit copies, write targets).
  const scratchRel = `scratch/${spec.side}-${process.pid}`;
  const scratch = path.join(spec.workspace, scratchRel);
  fs.mkdirSync(scratch, { recursive: true });

  const w = spec.workload;
  let prepare = () => ({});
  let argsFor;
  if (w.tool === 'edit') {
    // Same bytes for every worker: copy the generated file, then toggle MARKER_A <-> MARKER_B.
    fs.copyFileSync(path.join(spec.workspace, w.file), path.join(scratch, path.basename(w.file)));
    const rel = `${scratchRel}/${path.basename(w.file)}`;
    let current = w.markers[0];
    argsFor = () => {
      const next = current === w.markers[0] ? w.markers[1] : w.markers[0];
      const args = { path: rel, edits: [{ oldText: current, newText: next }] };
      current = next;
      return args;
    };
  } else if (w.tool === 'write') {
    const content = fs.readFileSync(path.join(spec.workspace, w.contentFile), 'utf8');
    const dir = path.join(scratch, 'new-dir');
    // Untimed: remove the folder, so that every run creates the folder and the file.
    prepare = () => fs.rmSync(dir, { recursive: true, force: true });
    argsFor = () => ({ path: `${scratchRel}/new-dir/out.txt`, content });
  } else {
    argsFor = () => w.args;
  }

  let seq = 0;
  let last;
  const once = async () => {
    const args = argsFor();
    last = await call(w.tool, args, `c${++seq}`);
    if (w.tool === 'edit' && last.isError) throw new Error(`edit failed: ${last.text.slice(0, 300)}`);
    return last;
  };

  // First call (cold), timed separately, then the harness loop.
  const f0 = performance.now();
  await once();
  const firstCallMs = performance.now() - f0;
  const { runUs } = await measureRuns({ prepare, run: once, warmup: spec.warmup, minReps: spec.minReps, maxReps: spec.maxReps, budgetMs: spec.budgetMs, gcBetweenReps: spec.gcBetweenReps });

  const problems = [];
  if (last.isError) problems.push(`last result is an error: ${last.text.slice(0, 200)}`);
  if (w.expect && !last.text.includes(w.expect)) problems.push(`last result lacks ${JSON.stringify(w.expect)}: ${JSON.stringify(last.text.slice(-200))}`);
  const result = {
    runUs,
    warmup: spec.warmup,
    firstCallMs,
    importMs,
    rssAfterImportMB,
    peakRssMB: peakRssMB(),
    lastText: { chars: last.text.length, head: last.text.slice(0, 120), tail: last.text.slice(-160) },
    lastIsError: last.isError,
    // grep/find report the engine they used (rg, fd or node), so the table can say what was timed.
    engine: last.engine ?? null,
    problems,
    warnings: await warnings(),
  };
  await close();
  fs.rmSync(scratch, { recursive: true, force: true });
  return result;
});

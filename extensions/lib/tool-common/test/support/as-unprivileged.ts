import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '@airlock/kernel/testing';
import { NOBODY, skipUnlessNobodyCanReach } from './reachable.js';

export { NOBODY, isRoot, skipUnlessNobodyCanReach, whyNobodyCannotReach } from './reachable.js';

/**
 * Permission tests need a user the file system can refuse, and root ignores permission bits.
 * So as root, the call runs in a child process as `nobody` (uid/gid 65534). Not root: use chmod instead.
 *
 * `nobody` must reach two things: the fixtures, and the code it runs. The checkout may sit in a
 * folder only its owner may enter (a 0700 home, /root in a CI container), so the child never
 * loads code from the checkout: the tool and the kernel's test ToolContext are bundled into one
 * file in a temp folder of mode 0755, and run from there. A fixture `nobody` cannot reach (the
 * temp folder itself under a private folder) skips the test with a note saying why.
 */

const REPO = resolve(fileURLToPath(import.meta.url), '../../../../../..');
// rolldown is the CLI's bundler; the tests borrow it rather than add another.
const ROLLDOWN = createRequire(join(REPO, 'packages/cli/package.json')).resolve('rolldown');

export interface ChildOutcome {
  ok: boolean;
  /** The result's text, or the thrown error's message. */
  text: string;
  /** The result's details (undefined for an error). */
  details?: unknown;
}

export interface RunOptions {
  /** Call `toolExport` with these arguments to make the tool, e.g. `[{ engine: 'rg' }]` for createGrepTool. */
  factoryArgs?: unknown[];
}

/** One call for runAllAsNobody: the tool's params, and how to make the tool. */
export interface NobodyCall extends RunOptions {
  params: unknown;
}

/**
 * Run `toolExport` of the tool package in `extensions/<pkg>/src/index.ts` as `nobody`, with `params`.
 *
 * @example await runAsNobody('tool-edit', 'editTool', dir, { path: 'f.txt', edits: [...] })
 * @example await runAsNobody('tool-grep', 'createGrepTool', dir, { pattern: 'x' }, { factoryArgs: [{ engine: 'node' }] })
 */
export async function runAsNobody(pkg: string, toolExport: string, cwd: string, params: unknown, options: RunOptions = {}): Promise<ChildOutcome> {
  return (await runAllAsNobody(pkg, toolExport, cwd, [{ ...options, params }]))[0] as ChildOutcome;
}

/**
 * Several calls, one after another, in one child: bundling and starting the child take about a
 * second, the calls milliseconds, so a test comparing many calls runs them together.
 */
export async function runAllAsNobody(pkg: string, toolExport: string, cwd: string, calls: NobodyCall[]): Promise<ChildOutcome[]> {
  skipUnlessNobodyCanReach(cwd);
  const stage = makeTempDir('airlock-nobody-');
  chmodSync(stage, 0o755);
  skipUnlessNobodyCanReach(stage);
  const entry = join(stage, 'entry.mjs');
  writeFileSync(
    entry,
    `import * as tool from ${JSON.stringify(join(REPO, 'extensions/tools', pkg.replace(/^tool-/, ''), 'src/index.ts'))};
import { createTestContext } from ${JSON.stringify(join(REPO, 'packages/kernel/src/testing/index.ts'))};
const exported = tool[${JSON.stringify(toolExport)}];
const outcomes = [];
for (const call of ${JSON.stringify(calls)}) {
  const made = call.factoryArgs ? exported(...call.factoryArgs) : exported;
  const ctx = createTestContext({ cwd: ${JSON.stringify(cwd)} });
  try {
    const result = await made.execute('t', call.params, undefined, undefined, ctx);
    outcomes.push({ ok: true, text: result.content.map((c) => c.text).join(''), details: result.details });
  } catch (error) {
    outcomes.push({ ok: false, text: error.message });
  }
}
process.stdout.write(JSON.stringify(outcomes));
`,
  );
  const script = join(stage, 'run.mjs');
  await bundle(entry, script);
  chmodSync(script, 0o644);
  const child = spawnSync(process.execPath, [script], {
    uid: NOBODY,
    gid: NOBODY,
    cwd: stage,
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', ...(process.env.TMPDIR === undefined ? {} : { TMPDIR: process.env.TMPDIR }) },
  });
  if (child.status !== 0 || !child.stdout) throw new Error(`the child as nobody failed (status ${child.status}): ${child.stderr || child.error?.message}`);
  return JSON.parse(child.stdout) as ChildOutcome[];
}

/** The part of rolldown's API used here (tool-common does not depend on rolldown's types). */
type Rolldown = (options: Record<string, unknown>) => Promise<{ write(options: Record<string, unknown>): Promise<unknown>; close(): Promise<void> }>;

/** One self-contained ESM file: workspace packages resolve to their TypeScript sources. */
async function bundle(input: string, file: string): Promise<void> {
  const { rolldown } = (await import(pathToFileURL(ROLLDOWN).href)) as { rolldown: Rolldown };
  const build = await rolldown({
    input,
    platform: 'node',
    resolve: { conditionNames: ['source', 'import', 'node', 'default'] },
    external: [/^node:/],
    logLevel: 'silent',
  });
  try {
    await build.write({ file, format: 'esm', codeSplitting: false });
  } finally {
    await build.close();
  }
}

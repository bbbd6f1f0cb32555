import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Permission tests need a user the file system can refuse, and root ignores permission bits.
 * So as root, the call runs in a child process as `nobody` (uid/gid 65534). The child loads the
 * tool's TypeScript source with jiti (the loader the host uses for extensions) and gives it the
 * kernel's test ToolContext (truncation included: grep and find need it). Not root: use chmod instead.
 */

export const NOBODY = 65534;
export const isRoot = process.getuid?.() === 0;

const REPO = resolve(fileURLToPath(import.meta.url), '../../../../..');
// jiti is the host's dependency; the tests borrow it rather than add a second loader.
const JITI = createRequire(join(REPO, 'packages/host/package.json')).resolve('jiti');

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
 * @example runAsNobody('tool-edit', 'editTool', dir, { path: 'f.txt', edits: [...] })
 * @example runAsNobody('tool-grep', 'createGrepTool', dir, { pattern: 'x' }, { factoryArgs: [{ engine: 'node' }] })
 */
export function runAsNobody(pkg: string, toolExport: string, cwd: string, params: unknown, options: RunOptions = {}): ChildOutcome {
  return runAllAsNobody(pkg, toolExport, cwd, [{ ...options, params }])[0] as ChildOutcome;
}

/**
 * Several calls, one after another, in one child: starting the child and loading the tool take
 * a second or two, the calls milliseconds, so a test comparing many calls runs them together.
 */
export function runAllAsNobody(pkg: string, toolExport: string, cwd: string, calls: NobodyCall[]): ChildOutcome[] {
  const scriptDir = mkdtempSync(join(tmpdir(), 'airlock-nobody-'));
  chmodSync(scriptDir, 0o755);
  const script = join(scriptDir, 'run.cjs');
  writeFileSync(
    script,
    `const { createJiti } = require(${JSON.stringify(JITI)});
const jiti = createJiti(__filename, { fsCache: false, moduleCache: false });
(async () => {
  const exported = (await jiti.import(${JSON.stringify(join(REPO, 'extensions', pkg, 'src/index.ts'))}))[${JSON.stringify(toolExport)}];
  const { createTestContext } = await jiti.import(${JSON.stringify(join(REPO, 'packages/kernel/src/testing/index.ts'))});
  const outcomes = [];
  for (const call of ${JSON.stringify(calls)}) {
    const tool = call.factoryArgs ? exported(...call.factoryArgs) : exported;
    const ctx = createTestContext({ cwd: ${JSON.stringify(cwd)} });
    try {
      const result = await tool.execute('t', call.params, undefined, undefined, ctx);
      outcomes.push({ ok: true, text: result.content.map((c) => c.text).join(''), details: result.details });
    } catch (error) {
      outcomes.push({ ok: false, text: error.message });
    }
  }
  process.stdout.write(JSON.stringify(outcomes));
})();
`,
    { mode: 0o644 },
  );
  const child = spawnSync(process.execPath, [script], { uid: NOBODY, gid: NOBODY, cwd: scriptDir, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '' } });
  if (child.status !== 0 || !child.stdout) throw new Error(`the child as nobody failed (status ${child.status}): ${child.stderr || child.error?.message}`);
  return JSON.parse(child.stdout) as ChildOutcome[];
}

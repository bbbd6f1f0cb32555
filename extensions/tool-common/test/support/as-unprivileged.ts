import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Permission tests need a user the file system can refuse, and root ignores permission bits.
 * So as root, the call runs in a child process as `nobody` (uid/gid 65534). The child loads the
 * tool's TypeScript source with jiti (the loader the host uses for extensions) and gives it a
 * minimal ToolContext; the tool needs nothing else from a kernel. Not root: use chmod instead.
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
}

/**
 * Run `toolExport` of the tool package in `extensions/<pkg>/src/index.ts` as `nobody`, with `params`.
 *
 * @example runAsNobody('tool-edit', 'editTool', dir, { path: 'f.txt', edits: [...] })
 */
export function runAsNobody(pkg: string, toolExport: string, cwd: string, params: unknown): ChildOutcome {
  const scriptDir = mkdtempSync(join(tmpdir(), 'airlock-nobody-'));
  chmodSync(scriptDir, 0o755);
  const script = join(scriptDir, 'run.cjs');
  writeFileSync(
    script,
    `const { createJiti } = require(${JSON.stringify(JITI)});
const jiti = createJiti(__filename, { fsCache: false, moduleCache: false });
(async () => {
  const tool = (await jiti.import(${JSON.stringify(join(REPO, 'extensions', pkg, 'src/index.ts'))}))[${JSON.stringify(toolExport)}];
  const stamps = new Map();
  const ctx = {
    cwd: ${JSON.stringify(cwd)},
    files: { get: (p) => stamps.get(p), note: (p, s) => stamps.set(p, s), forget: (p) => stamps.delete(p) },
    withFileMutation: (_path, fn) => fn(),
  };
  try {
    const result = await tool.execute('t', ${JSON.stringify(params)}, undefined, undefined, ctx);
    process.stdout.write(JSON.stringify({ ok: true, text: result.content.map((c) => c.text).join('') }));
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, text: error.message }));
  }
})();
`,
    { mode: 0o644 },
  );
  const child = spawnSync(process.execPath, [script], { uid: NOBODY, gid: NOBODY, cwd: scriptDir, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '' } });
  if (child.status !== 0 || !child.stdout) throw new Error(`the child as nobody failed (status ${child.status}): ${child.stderr || child.error?.message}`);
  return JSON.parse(child.stdout) as ChildOutcome;
}

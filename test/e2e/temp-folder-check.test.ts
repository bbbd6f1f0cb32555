import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const GLOBAL_SETUP = join(ROOT, 'test/global/temp-folder.global.ts');

interface Outcome {
  code: number;
  output: string;
  report: string | undefined;
  /** What the nested run left in the temp folder it was given. */
  after: string[];
}

/** Run vitest on one test file (its body given), with the suite's temp-folder check as global setup. */
function nestedRun(body: string): Promise<Outcome> {
  const dir = makeTempDir('airlock-nested-run-');
  const tmp = join(dir, 'tmp');
  const project = join(dir, 'project');
  for (const d of [tmp, project]) mkdirSync(d);
  // No imports: the fixture lives outside the workspace, where 'vitest' would not resolve.
  writeFileSync(join(project, 'vitest.config.mjs'), `export default { test: { globals: true, include: ['*.test.mjs'], globalSetup: [${JSON.stringify(GLOBAL_SETUP)}] } };\n`);
  writeFileSync(join(project, 'fixture.test.mjs'), `import { mkdirSync, writeFileSync } from 'node:fs';\nimport { tmpdir } from 'node:os';\nimport { tmpdir } from 'node:os';
import { join } from 'node:path';\n${body}\n`);
  const report = join(dir, 'leftovers.txt');
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, AIRLOCK_TEST_LEFTOVERS_REPORT: report };
  delete env.AIRLOCK_TEST_RUN_TMPDIR; // the outer run's: the nested run must own a folder of its own
  return new Promise((resolve) => {
    execFile(process.execPath, [VITEST, 'run', '--root', project, '--config', join(project, 'vitest.config.mjs')], { env, cwd: project, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
        output: stdout + stderr,
        report: existsSync(report) ? readFileSync(report, 'utf8') : undefined,
        after: readdirSync(tmp),
      });
    });
  });
}

describe('this run has a temp folder of its own', () => {
  it('os.tmpdir() in this worker, and TMPDIR in a child shell, are the folder the run owns', () => {
    const owned = process.env.AIRLOCK_TEST_RUN_TMPDIR;
    expect(owned).toMatch(/airlock-test-run-/);
    expect(tmpdir()).toBe(owned);
    expect(execFileSync('sh', ['-c', 'echo "$TMPDIR"'], { encoding: 'utf8' }).trim()).toBe(owned);
  });
});

describe('the suite fails when tests leave something in the temp folder', { timeout: scaledMs(60_000) }, () => {
  it('a test that leaves folders fails the run (exit 1), the message names them, and they are removed', async () => {
    const r = await nestedRun(`it('leaks', () => { for (const n of ['a1B2c3', 'x9Y8z7']) mkdirSync(join(tmpdir(), 'airlock-leaky-' + n)); writeFileSync(join(tmpdir(), 'stray.log'), 'x'); });`);
    expect(r.code, r.output).toBe(1);
    expect(r.output).toContain('1 passed');
    expect(r.output).toMatch(/left 3 file\(s\) or folder\(s\) in the temp folder/);
    expect(r.output).toContain('airlock-leaky-* (2, e.g. airlock-leaky-a1B2c3)');
    expect(r.output).toContain('stray.log');
    expect(r.report).toBe('airlock-leaky-a1B2c3\nairlock-leaky-x9Y8z7\nstray.log\n');
    expect(r.after).toEqual([]);
  });

  it('a clean run passes; what the code keeps by design (spill folders, jiti cache) is removed without failing it', async () => {
    const r = await nestedRun(
      `it('spills', () => { mkdirSync(join(tmpdir(), 'airlock-spill-' + process.getuid(), 's1'), { recursive: true }); mkdirSync(join(tmpdir(), 'jiti')); });`,
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('left');
    expect(r.report).toBeUndefined();
    expect(r.after).toEqual([]);
  });
});

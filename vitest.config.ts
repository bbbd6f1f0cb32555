import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `ai` reaches eventsource-parser, which also exports a "source" condition (its src/*.ts): the
// workers' native loader, started with --conditions source, cannot load that, so the chain is
// bundled by vite (which transpiles it). The MCP SDK's HTTP client reaches eventsource-parser the
// same way: the CLI's tests import every extension's entry (the error catalogue), @airlock/mcp-tools
// among them, and mcp-tools' own tests load it into hosts.
const sdkInline = { server: { deps: { inline: ['ai', /@ai-sdk\//, 'eventsource-parser', /@modelcontextprotocol\/sdk/] } } };

// Time limits scale with how busy the machine is when the run starts: on a 2-core machine already
// running 8 busy processes, everything takes about 4 times as long, and a test must not fail for
// that. AIRLOCK_TEST_TIME_SCALE sets the factor instead (e.g. 3 for a machine known to be slow).
const timeScale = Number(process.env.AIRLOCK_TEST_TIME_SCALE ?? Math.min(6, Math.max(1, (loadavg()[0] ?? 0) / availableParallelism())));
const limit = (ms: number): number => Math.round(ms * timeScale);
// The workers inherit it: a test's own limits scale the same way (scaledMs in @airlock/kernel/testing).
process.env.AIRLOCK_TEST_TIME_SCALE = String(timeScale);

// Every project extends this, so vitest calls it once per project too; only the first call acts.
const tempFolderCheck = fileURLToPath(new URL('test/global/temp-folder.global.ts', import.meta.url));

// Test files share their worker's module cache (isolate: false): importing the host and every
// extension once per worker instead of once per file halved the host and extension tests' time.
// A file that replaces modules (vi.mock) would leak its mocks into the files after it, so those
// files, found by reading them, run in a project of their own with a fresh module cache each.
const mocking = mockingTestFiles();

// One root config with inline projects: glob projects would not inherit the `source`
// condition and would fail to resolve workspace packages before a build (toolchain.md §11).
export default defineConfig({
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
  test: {
    // TMPDIR -> a folder this run owns; the run fails if tests leave anything in it.
    globalSetup: [tempFolderCheck],
    // Three test files at a time on a 2-core machine: most end-to-end tests wait on child
    // processes (the CLI, bash, servers), so a third file fills the idle time. CI must stay under
    // 10 minutes: with two it took 9, with three 5.5. VITEST_MAX_WORKERS overrides it.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    // Hooks remove whole installs and stop servers: on a loaded 2-core machine removing an npm
    // install took longer than vitest's default 10 s, and a timed-out afterAll fails its file.
    hookTimeout: limit(60_000),
    testTimeout: limit(5_000),
    projects: [
      // Every package's, extension's and example's tests in one project: each project has its own
      // Vite server and module graph, so with one project per package every worker transformed and
      // imported the host and the extensions once per package. One project took the run from 249 s
      // to 214 s and its CPU time from 417 s to 360 s. Host and CLI tests open real hosts that load
      // extensions through jiti and many tests run real processes: hence 20 s, scaled.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'extensions/*/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...mocking, 'extensions/policy/telemetry/**'],
          isolate: false,
          testTimeout: limit(20_000),
          ...sdkInline,
        },
      },
      // The files that mock modules, each with a fresh module cache (see `mocking` above).
      ...(mocking.length === 0 ? [] : [{ extends: true as const, test: { name: 'mocking', include: mocking, testTimeout: limit(20_000), ...sdkInline } }]),
      // The OpenTelemetry packages' ESM builds (picked by the `module` condition the workers get)
      // have extension-less imports Node refuses: telemetry's tests run without that condition.
      {
        ssr: { resolve: { conditions: ['source', 'node'] } },
        test: { name: 'telemetry', root: 'extensions/policy/telemetry', include: ['test/**/*.test.ts'], globalSetup: [tempFolderCheck], hookTimeout: limit(60_000) },
      },
      // A test here may run a dozen CLI processes one after another: on a loaded machine 20 s was too short for that.
      { extends: true, test: { name: 'e2e', root: 'test', include: ['e2e/**/*.test.ts'], globalSetup: ['e2e/build.global.ts'], testTimeout: limit(60_000) } },
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**', 'extensions/*/*/src/**'],
      reporter: ['text', 'json-summary'],
    },
  },
});

/**
 * Test files (relative to the repository) that replace modules with vi.mock or vi.doMock: they
 * must not share a module cache with other files. Read from the files themselves, so a new one is
 * isolated without anyone remembering to list it.
 */
function mockingTestFiles(): string[] {
  const root = fileURLToPath(new URL('.', import.meta.url));
  const found: string[] = [];
  const visit = (dir: string, inTests: boolean): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(path, inTests || entry.name === 'test');
      else if (inTests && entry.name.endsWith('.ts')) {
        const text = readFileSync(join(root, path), 'utf8');
        if (entry.name.endsWith('.test.ts')) {
          if (/\bvi\.(?:do)?[mM]ock\(/.test(text)) found.push(path);
          continue;
        }
        // A helper's top-level hook is registered once per worker, for the first file that imports it.
        const hook = /^(afterEach|afterAll|beforeEach|beforeAll)\(/m.exec(text);
        if (hook !== null) {
          throw new Error(
            `${path} calls ${hook[1]}() at its top level: test files share their worker's modules (isolate: false), so only the first file to import it would get that hook. ` +
              'Call the hook from the test files, or clean up inside the helper (makeTempDir, onTestFinished).',
          );
        }
      }
    }
  };
  for (const top of ['packages', 'extensions', 'examples']) visit(top, false);
  return found;
}

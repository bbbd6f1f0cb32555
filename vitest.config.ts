import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// `ai` reaches eventsource-parser, which also exports a "source" condition (its src/*.ts): the
// workers' native loader, started with --conditions source, cannot load that, so the chain is
// bundled by vite (which transpiles it) in the projects that use the AI SDK.
const aiSdkInline = { server: { deps: { inline: ['ai', /@ai-sdk\//, 'eventsource-parser'] } } };
// The MCP SDK's HTTP client reaches eventsource-parser the same way; the CLI's tests import every
// extension's entry (the error catalogue), @airlock/mcp-tools among them, and mcp-tools' own tests
// load it into hosts (natively, as a built-in: jiti, which resolved without `source`, is no longer
// the fallback).
const mcpClientInline = { server: { deps: { inline: [/@modelcontextprotocol\/sdk/, 'eventsource-parser'] } } };

// Every project extends this, so vitest calls it once per project too; only the first call acts.
const tempFolderCheck = fileURLToPath(new URL('test/global/temp-folder.global.ts', import.meta.url));

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
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'kernel', root: 'packages/kernel', include: ['test/**/*.test.ts'] } },
      // host and cli tests open real hosts that load extensions from TypeScript through jiti: with a
      // cold transpile cache on a busy 2-core machine one test can take several seconds.
      { extends: true, test: { name: 'agent', root: 'packages/agent', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'host', root: 'packages/host', include: ['test/**/*.test.ts'], testTimeout: 20_000 } },
      { extends: true, test: { name: 'serve', root: 'packages/serve', include: ['test/**/*.test.ts'], testTimeout: 20_000 } },
      { extends: true, test: { name: 'sdk', root: 'packages/sdk', include: ['test/**/*.test.ts'], testTimeout: 20_000, ...aiSdkInline } },
      { extends: true, test: { name: 'cli', root: 'packages/cli', include: ['test/**/*.test.ts'], testTimeout: 20_000, ...mcpClientInline } },
      { extends: true, test: { name: 'extensions', root: 'extensions', include: ['*/*/test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'policy/telemetry/**'], ...mcpClientInline } },
      // The OpenTelemetry packages' ESM builds (picked by the `module` condition the workers get)
      // have extension-less imports Node refuses: telemetry's tests run without that condition.
      {
        ssr: { resolve: { conditions: ['source', 'node'] } },
        test: { name: 'telemetry', root: 'extensions/policy/telemetry', include: ['test/**/*.test.ts'], globalSetup: [tempFolderCheck], hookTimeout: 60_000 },
      },
      { extends: true, test: { name: 'examples', root: 'examples', include: ['*/test/**/*.test.ts'], testTimeout: 20_000, server: { deps: { inline: [...aiSdkInline.server.deps.inline, ...mcpClientInline.server.deps.inline] } } } },
      { extends: true, test: { name: 'e2e', root: 'test', include: ['e2e/**/*.test.ts'], globalSetup: ['e2e/build.global.ts'], testTimeout: 20_000 } },
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**', 'extensions/*/*/src/**'],
      reporter: ['text', 'json-summary'],
    },
  },
});

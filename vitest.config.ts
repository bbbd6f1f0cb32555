import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// One root config with inline projects: glob projects would not inherit the `source`
// condition and would fail to resolve workspace packages before a build (toolchain.md §11).
export default defineConfig({
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
  test: {
    projects: [
      { extends: true, test: { name: 'kernel', root: 'packages/kernel', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'examples', root: 'examples', include: ['*/test/**/*.test.ts'] } },
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**', 'extensions/*/src/**'],
      reporter: ['text', 'json-summary'],
    },
  },
});

// Bundle the built CLI into one file, dist/airlock.mjs. Node 20 spends most of a cold start
// resolving and compiling the ~700 files typebox is made of; one file starts the CLI in about
// 0.2 s instead of 0.55 s. Loaded on demand and kept out of the bundle: jiti (with babel, only
// for TypeScript extensions and configs), the prompt library (only when a dialog shows) and
// sharp (native code; only when an image must be resized). Airlock's own default extensions are
// compiled in (scripts/bundle-entry.mjs), so the default set loads without jiti: about 0.2 s less.
import { rolldown } from 'rolldown';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('..', import.meta.url));
const bundle = await rolldown({
  input: `${cli}/scripts/bundle-entry.mjs`,
  platform: 'node',
  // web-tree-sitter stays a module of its own: it finds its .wasm next to itself.
  external: [/^node:/, /^jiti(\/|$)/, /^@inquirer\//, 'typescript', 'sharp', 'web-tree-sitter'],
  logLevel: 'warn',
});
await bundle.write({ file: `${cli}/dist/airlock.mjs`, format: 'esm', codeSplitting: false, sourcemap: true });
await bundle.close();

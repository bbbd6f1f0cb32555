// Airlock's default extensions in one file for the SDK, dist/builtins.mjs. openHost from the SDK
// hands them to the host as compiled-in modules (`bundled`), as the CLI's single file does: each
// of the ~150 modules the default set is made of would otherwise be resolved, read and compiled
// on its own, which was most of openHost. The host still reads each package's manifest, checks
// compatibility and runs setup(api), and uses a compiled-in module only when resolution finds
// that same package and version among Airlock's own.
//
// The kernel and typebox stay outside (the host's own instances, never a second kernel), and so
// does web-tree-sitter (it finds its .wasm next to itself).
import { rolldown } from 'rolldown';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EXTENSIONS } from '@airlock/host';

const sdk = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = `${sdk}/dist/builtins-entry.mjs`;

/** `export const bundled = { name: { version, load } }`, one entry per default extension. */
function entrySource(names) {
  const lines = names.flatMap((name, i) => [`import * as m${i} from '${name}';`, `import p${i} from '${name}/package.json' with { type: 'json' };`]);
  const entries = names.map((_, i) => `  [p${i}.name]: { version: p${i}.version, load: async () => m${i} },`);
  return `${lines.join('\n')}\nexport const bundled = {\n${entries.join('\n')}\n};\n`;
}

const bundle = await rolldown({
  input: ENTRY,
  platform: 'node',
  cwd: sdk,
  external: [/^node:/, /^@airlock\/kernel(\/|$)/, /^typebox(\/|$)/, 'web-tree-sitter'],
  plugins: [
    {
      name: 'builtins-entry',
      resolveId: (id) => (id === ENTRY ? ENTRY : undefined),
      load: (id) => (id === ENTRY ? entrySource(DEFAULT_EXTENSIONS) : undefined),
    },
  ],
  logLevel: 'warn',
});
await bundle.write({ file: `${sdk}/dist/builtins.mjs`, format: 'esm', codeSplitting: false, sourcemap: true });
await bundle.close();

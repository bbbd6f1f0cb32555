// One file holding a build's host and its default extensions, compiled in as the CLI bundle does
// (packages/cli/scripts/bundle-entry.mjs), so a bench host opens in a few tens of milliseconds
// without jiti. argv: <repo dir of the build> <output file>
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [build, out] = process.argv.slice(2);
const cli = path.join(build, 'packages/cli');
const source = fs.readFileSync(path.join(cli, 'scripts/bundle-entry.mjs'), 'utf8');
// The same compiled-in set as the CLI's; the host's openHost instead of the CLI's run.
const bundled = source.slice(source.indexOf('const bundled'), source.indexOf('};', source.indexOf('const bundled')) + 2);
const imports = source.split('\n').filter((l) => l.startsWith('import ') && l.includes('package.json'));
const entry = path.join(cli, 'dist', 'walk-bench-entry.mjs');
fs.writeFileSync(entry, [...imports, "export { openHost } from '@airlock/host';", `export ${bundled}`].join('\n'));
const { rolldown } = await import(pathToFileURL(path.join(cli, 'node_modules/rolldown/dist/index.mjs')).href);
const bundle = await rolldown({ input: entry, platform: 'node', external: [/^node:/, /^jiti(\/|$)/, /^@inquirer\//, 'typescript', 'sharp', 'web-tree-sitter'], logLevel: 'silent' });
await bundle.write({ file: out, format: 'esm', codeSplitting: false, sourcemap: true });
await bundle.close();
fs.rmSync(entry);


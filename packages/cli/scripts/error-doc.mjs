// docs/errors.md, rendered from the error catalogue: the kernel's codes, and those the host, the CLI
// and the built-in extensions register when their modules load. `node scripts/error-doc.mjs --write`
// (after `tsc -b`) rewrites the page; packages/cli/test/error-catalogue.test.ts fails while the page
// and the catalogue differ.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ERRORS_DOC = join(ROOT, 'docs', 'errors.md');

/**
 * The entry modules of the built-in extensions (tools, policy, lib with a manifest): importing one
 * registers the codes it raises.
 *
 * @example
 * extensionEntries().some((f) => f.endsWith('path-policy/src/index.ts')); // true
 */
export function extensionEntries() {
  const out = [];
  for (const group of ['tools', 'policy', 'lib']) {
    const dir = join(ROOT, 'extensions', group);
    for (const name of readdirSync(dir).sort()) {
      const pkgFile = join(dir, name, 'package.json');
      if (!existsSync(pkgFile)) continue;
      const entry = JSON.parse(readFileSync(pkgFile, 'utf8')).airlock?.extension;
      if (typeof entry === 'string') out.push(join(dir, name, entry));
    }
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { createJiti } = await import('jiti');
  // The catalogue is the toolkit's; the host and the CLI fill it as they load.
  const toolkit = await import('@airlock/toolkit');
  await import('@airlock/host');
  await import('../dist/index.js');
  // Extensions are TypeScript; they get the packages' built copies imported above, as the host hands them its own.
  const dist = (pkg, file) => join(ROOT, 'packages', pkg, 'dist', file);
  const jiti = createJiti(import.meta.url, {
    alias: {
      '@airlock/toolkit/util': dist('toolkit', 'util/index.js'),
      '@airlock/toolkit/display': dist('toolkit', 'display/index.js'),
      '@airlock/toolkit': dist('toolkit', 'index.js'),
      '@airlock/contract': dist('contract', 'index.js'),
      '@airlock/kernel': dist('kernel', 'index.js'),
    },
  });
  for (const entry of extensionEntries()) await jiti.import(entry);
  const doc = existsSync(ERRORS_DOC) ? readFileSync(ERRORS_DOC, 'utf8') : '';
  const next = toolkit.renderErrorCatalogue(toolkit.errorCodes());
  if (!process.argv.includes('--write')) {
    process.stdout.write(next === doc ? 'docs/errors.md is up to date\n' : 'docs/errors.md is out of date: run with --write\n');
    process.exitCode = next === doc ? 0 : 1;
  } else if (next !== doc) {
    writeFileSync(ERRORS_DOC, next);
    process.stdout.write('docs/errors.md: rewritten from the error catalogue\n');
  }
}

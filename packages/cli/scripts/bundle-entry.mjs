// Entry of the single-file CLI (dist/airlock.mjs). Airlock's own tool packages are compiled in, so
// the default set starts without jiti and babel; the host still reads each package's manifest,
// checks compatibility and runs setup(api) as for any extension, and uses a compiled module only
// when resolution finds that same package and version among Airlock's own.
import { processIO, run as runCli } from '../dist/index.js';
import bashPackage from '@airlock/tool-bash/package.json' with { type: 'json' };
import editPackage from '@airlock/tool-edit/package.json' with { type: 'json' };
import findPackage from '@airlock/tool-find/package.json' with { type: 'json' };
import grepPackage from '@airlock/tool-grep/package.json' with { type: 'json' };
import lsPackage from '@airlock/tool-ls/package.json' with { type: 'json' };
import readPackage from '@airlock/tool-read/package.json' with { type: 'json' };
import writePackage from '@airlock/tool-write/package.json' with { type: 'json' };

const bundled = {
  [bashPackage.name]: { version: bashPackage.version, load: () => import('@airlock/tool-bash') },
  [editPackage.name]: { version: editPackage.version, load: () => import('@airlock/tool-edit') },
  [findPackage.name]: { version: findPackage.version, load: () => import('@airlock/tool-find') },
  [grepPackage.name]: { version: grepPackage.version, load: () => import('@airlock/tool-grep') },
  [lsPackage.name]: { version: lsPackage.version, load: () => import('@airlock/tool-ls') },
  [readPackage.name]: { version: readPackage.version, load: () => import('@airlock/tool-read') },
  [writePackage.name]: { version: writePackage.version, load: () => import('@airlock/tool-write') },
};

/** `airlock …` with the compiled-in extensions. */
export function run(argv) {
  return runCli(argv, processIO(bundled));
}

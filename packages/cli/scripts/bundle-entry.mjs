// Entry of the bundled CLI (dist/airlock.mjs and its chunks). Airlock's own default extensions (the seven
// tools and the four policy extensions) and the command modules their manifests declare are compiled
// in, so the default set starts without jiti and babel; the host still reads each package's manifest,
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
import approvalPackage from '@airlock/approval/package.json' with { type: 'json' };
import auditPackage from '@airlock/audit-log/package.json' with { type: 'json' };
import pathPolicyPackage from '@airlock/path-policy/package.json' with { type: 'json' };
import redactPackage from '@airlock/redact-secrets/package.json' with { type: 'json' };
import telemetryPackage from '@airlock/telemetry/package.json' with { type: 'json' };

const bundled = {
  [bashPackage.name]: { version: bashPackage.version, load: () => import('@airlock/tool-bash') },
  [editPackage.name]: { version: editPackage.version, load: () => import('@airlock/tool-edit') },
  [findPackage.name]: { version: findPackage.version, load: () => import('@airlock/tool-find') },
  [grepPackage.name]: { version: grepPackage.version, load: () => import('@airlock/tool-grep') },
  [lsPackage.name]: { version: lsPackage.version, load: () => import('@airlock/tool-ls') },
  [readPackage.name]: { version: readPackage.version, load: () => import('@airlock/tool-read') },
  [writePackage.name]: { version: writePackage.version, load: () => import('@airlock/tool-write') },
  [approvalPackage.name]: { version: approvalPackage.version, load: () => import('@airlock/approval') },
  [auditPackage.name]: { version: auditPackage.version, load: () => import('@airlock/audit-log'), commands: { './src/command.ts': () => import('@airlock/audit-log/command') } },
  [pathPolicyPackage.name]: {
    version: pathPolicyPackage.version,
    load: () => import('@airlock/path-policy'),
    commands: { './src/command/policy-command.ts': () => import('@airlock/path-policy/command') },
  },
  [redactPackage.name]: { version: redactPackage.version, load: () => import('@airlock/redact-secrets') },
  // Its OpenTelemetry SDK is not bundled: loaded with require from the package, only when telemetry is on.
  [telemetryPackage.name]: { version: telemetryPackage.version, load: () => import('@airlock/telemetry') },
};

// The binary tells the CLI when a reader closed stdout or stderr (EPIPE).
export { noteReaderGone } from '../dist/index.js';

/** `airlock …` with the compiled-in extensions. */
export function run(argv) {
  return runCli(argv, processIO(bundled));
}

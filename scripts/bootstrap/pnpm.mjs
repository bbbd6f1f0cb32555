// Which pnpm the workspace runs: 12.21.0 exactly, as CI does (.ci/run). pnpm 11 does not run on
// Node 20, and two pnpm majors on one node_modules make the second refuse to touch it. No corepack
// and no packageManager field (they fail on this registry's signatures): when the PATH has no such
// pnpm, npx fetches it into npm's cache, once; later runs reuse it from there, offline.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export const PNPM_VERSION = '12.21.0';

/** The first `name` on `path` that may be executed, or undefined. */
function onPath(name, path) {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here; the next folder
    }
  }
  return undefined;
}

/** The version `file --version` prints, or undefined when it does not run. */
function versionOf(file, env) {
  const run = spawnSync(file, ['--version'], { env, encoding: 'utf8', timeout: 30_000 });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/**
 * Where the pnpm to use is, without fetching anything: the PATH's when it is 12.21.0, else the one
 * npx fetched on an earlier run (recorded in the stamp). `{ file, onPath?, how }`, or `{ other }` naming
 * a pnpm of another version found on the PATH (for the message), or `{}`.
 */
export function findPnpm(env, stamp) {
  const found = onPath('pnpm', env.PATH);
  const version = found === undefined ? undefined : versionOf(found, env);
  if (version === PNPM_VERSION) return { file: found, onPath: true, how: `pnpm ${PNPM_VERSION} on the PATH (${found})` };
  if (typeof stamp.pnpm === 'string' && existsSync(stamp.pnpm) && versionOf(stamp.pnpm, env) === PNPM_VERSION) {
    return { file: stamp.pnpm, how: `pnpm ${PNPM_VERSION} fetched by npx on an earlier run (${stamp.pnpm})` };
  }
  return found === undefined ? {} : { other: `${found} is pnpm ${version ?? '(it did not run)'}` };
}

/** npm's error codes for a registry it could not reach (refused, no such host, timed out, reset, a proxy's certificate). */
const NETWORK_ERRORS = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ESOCKETTIMEDOUT|ECONNRESET|ENETUNREACH|EHOSTUNREACH|E5\d\d|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|CERT_HAS_EXPIRED)$/;

/** npm's own error lines, without the stack trace: what failed and why, in npm's words. */
function npmErrorLines(stderr) {
  return stderr
    .split('\n')
    .filter((line) => /^npm error \S/.test(line) && !/^npm error\s+(at |\{|\}|[a-z]+: |syscall |errno )/.test(line) && !/complete log of this run/.test(line))
    .map((line) => `  ${line}`)
    .slice(0, 6)
    .join('\n');
}

/**
 * Fetches pnpm 12.21.0 with npx (from npm's cache when it is there: no network then) and returns
 * the path of its binary. Retries are few and short: with the registry unreachable, npm's own
 * retries waited over a minute before saying so.
 */
export function fetchPnpm(env) {
  const args = ['--yes', '--prefer-offline', '--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000', `--package=pnpm@${PNPM_VERSION}`, '-c', 'command -v pnpm'];
  const run = spawnSync('npx', args, { env, encoding: 'utf8' });
  if (run.error !== undefined) {
    const why = run.error.code === 'ENOENT' ? 'npx is not on the PATH' : run.error.message;
    throw new Error(`cannot fetch pnpm ${PNPM_VERSION}: ${why}. npx comes with npm, which comes with Node: reinstall Node from https://nodejs.org, or install pnpm yourself (npm i -g pnpm@${PNPM_VERSION}), then run the command again.`);
  }
  const file = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || file === undefined || file === '') {
    const said = `npx could not fetch pnpm ${PNPM_VERSION} (npx exited ${run.status}):\n${npmErrorLines(run.stderr) || run.stderr.trim()}\n`;
    const yourself = `install pnpm yourself (npm i -g pnpm@${PNPM_VERSION}), then run the command again. Nothing was installed.`;
    const code = /^npm error code (\S+)/m.exec(run.stderr)?.[1] ?? '';
    if (!NETWORK_ERRORS.test(code)) throw new Error(`${said}npm's message above says what stopped it: fix that, or ${yourself}`);
    const registry = spawnSync('npm', ['config', 'get', 'registry'], { env, encoding: 'utf8' }).stdout?.trim() || "npm's registry";
    throw new Error(
      `${said}This machine must reach ${registry} once, for pnpm and the workspace's packages; after that the commands work offline. ` +
        `Connect to the network (behind a proxy: npm config set proxy http://HOST:PORT), or ${yourself}`,
    );
  }
  const version = versionOf(file, env);
  if (version !== PNPM_VERSION) {
    throw new Error(`npx gave ${file}, which says it is pnpm ${version ?? '(it did not run)'}, not ${PNPM_VERSION}. Clear npx's copy (rm -rf "${dirname(dirname(dirname(file)))}") and run the command again.`);
  }
  return file;
}

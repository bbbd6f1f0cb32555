// The bootstrap's steps in order: find (or fetch) pnpm, install when node_modules is stale, build
// when the build is stale, then run the command with the workspace's tools on its PATH.
import { spawn, spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState } from './build.mjs';
import { installDigest, installState } from './install.mjs';
import { fetchPnpm, findPnpm, PNPM_VERSION } from './pnpm.mjs';
import { readStamp, updateStamp } from './stamp.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const USAGE = `usage: node scripts/bootstrap.mjs <command> [args…]   install and build what is missing or stale, then run the command
       node scripts/bootstrap.mjs --dry-run          say what would be installed or built, and why, without doing it`;

function say(text) {
  process.stderr.write(`bootstrap: ${text}\n`);
}

/** Runs a step with the person's terminal; throws with `fix` when it fails. */
function pnpmStep(file, args, env, fix) {
  const run = spawnSync(file, args, { cwd: ROOT, env, stdio: 'inherit' });
  if (run.error !== undefined) throw new Error(`${file} ${args.join(' ')} could not start: ${run.error.message}`);
  if (run.status !== 0) throw new Error(`\`pnpm ${args.join(' ')}\` failed (${run.signal ?? `exit ${run.status}`}); its output is above. ${fix}`);
}

/** The command, with its exit status (or its signal, raised again here) as this process's own. */
function runCommand(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: process.cwd(), env, stdio: 'inherit' });
    // Ctrl-C reaches the command from the terminal itself (same process group): passing it on too
    // would make a second interrupt of it (vitest stops at once on a second one). A SIGTERM or
    // SIGHUP sent to this process alone is passed on, so the command is never left behind.
    const ignore = () => {};
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', ignore);
    process.on('SIGTERM', forward);
    process.on('SIGHUP', forward);
    child.on('error', (error) => {
      say(error.code === 'ENOENT' ? `no command "${command}" (looked in node_modules/.bin, bin/ and the PATH).` : `${command} could not start: ${error.message}`);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      if (signal !== null) process.kill(process.pid, signal);
      resolve(code ?? 1);
    });
  });
}

/**
 * Everything before the command: returns the PATH entries the command needs (pnpm's folder when
 * pnpm came from npx). With `dryRun`, only says what it would do.
 */
function prepare(env, dryRun) {
  const started = Date.now();
  const stamp = readStamp(ROOT);
  const install = installState(ROOT, stamp);
  const build = buildState(ROOT, stamp);
  let pnpm = findPnpm(env, stamp);
  if (dryRun) {
    say(pnpm.file !== undefined ? `pnpm: ${pnpm.how}` : `pnpm: would fetch pnpm ${PNPM_VERSION} with npx${pnpm.other ? ` (${pnpm.other})` : ''}`);
    say(`install: ${install.needed ? `would run pnpm install --frozen-lockfile: ${install.reason}` : 'node_modules is up to date'}`);
    say(`build: ${build.needed ? `would run pnpm build: ${build.reason}` : 'up to date'}`);
    return [];
  }
  if (pnpm.file === undefined) {
    say(`pnpm ${PNPM_VERSION} is not on the PATH${pnpm.other ? ` (${pnpm.other})` : ''}: fetching it with npx, once (kept in npm's cache)…`);
    pnpm = { file: fetchPnpm(env) };
    updateStamp(ROOT, { pnpm: pnpm.file });
  }
  // npx's pnpm goes on the PATH of what runs next, so scripts and tests that call `pnpm` find it
  // (one found on the PATH is there already, and moving its folder forward could change which
  // `node` the command gets).
  const extraPath = pnpm.onPath ? [] : [dirname(pnpm.file)];
  // pnpm's "update available" notice would advise leaving the pinned version.
  const stepEnv = { ...env, PATH: [...extraPath, env.PATH].join(delimiter), pnpm_config_update_notifier: 'false' };
  let work = false;
  if (install.needed) {
    say(`installing the workspace: ${install.reason}…`);
    pnpmStep(pnpm.file, ['install', '--frozen-lockfile'], stepEnv, 'If it could not reach the registry, connect to the network and run the command again.');
    updateStamp(ROOT, { install: installDigest(ROOT), pnpm: pnpm.file });
    work = true;
  }
  if (build.needed) {
    say(`building: ${build.reason}…`);
    pnpmStep(pnpm.file, ['run', 'build'], stepEnv, 'Fix what it names, then run the command again.');
    // The listing taken before the build: an edit made while it ran shows as a change next time.
    updateStamp(ROOT, { build: build.inputs });
    work = true;
  }
  if (work) say(`ready in ${Math.round((Date.now() - started) / 1000)} s.`);
  return extraPath;
}

export async function main(argv) {
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const dryRun = argv[0] === '--dry-run';
  if (!dryRun && (argv.length === 0 || argv[0].startsWith('-'))) {
    say(argv.length === 0 ? 'no command given.' : `unknown option ${argv[0]}.`);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const env = { ...process.env };
  let extraPath;
  try {
    extraPath = prepare(env, dryRun);
  } catch (error) {
    say(error.message);
    return 1;
  }
  if (dryRun) return 0;
  // The command finds the workspace's tools (vitest, tsc) and the clone's `airlock` (bin/) first.
  // AIRLOCK_TESTS_BUILT tells the end-to-end tests' setup that the build is current (it builds otherwise).
  const path = [join(ROOT, 'node_modules', '.bin'), join(ROOT, 'bin'), ...extraPath, env.PATH].join(delimiter);
  return runCommand(argv[0], argv.slice(1), { ...env, PATH: path, AIRLOCK_TESTS_BUILT: '1' });
}

// Is the build (`pnpm build`: tsc -b over tsconfig.json's projects, then the CLI's and the SDK's
// bundles) up to date with its sources? The bootstrap lists the sources' sizes and modification
// times before each build it runs and keeps that list; a later run compares the list it sees now.
// Any change counts (an edit, a file added, removed or renamed, a checkout that moved a time
// backwards), and none needs the files read: the ~700 stats take tens of milliseconds.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Files at the root that shape every project's output: compiler options, scripts, dependency versions. */
const ROOT_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.base.json', 'pnpm-lock.yaml'];

/**
 * What `pnpm build` writes last (root package.json's build script): when these are missing the
 * build never finished. Each project's dist/ is checked as well.
 */
const BUNDLES = ['packages/cli/dist/airlock.mjs', 'packages/sdk/dist/builtins.mjs'];

/**
 * Not sources: what builds and installs write (dist/, node_modules/, tsc's .tsbuildinfo), tests
 * (never compiled by `tsc -b`; editing one must not cost a build) and hidden files.
 */
function skipped(name) {
  return name === 'node_modules' || name === 'dist' || name === 'test' || name.startsWith('.') || name.endsWith('.tsbuildinfo');
}

/** The folders of tsconfig.json's project references, relative to the root. */
function projects(root) {
  const file = join(root, 'tsconfig.json');
  let config;
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the build's projects from ${file} (${error.message}); it must be JSON listing them under "references".`);
  }
  return (config.references ?? []).map(({ path }) => (path.endsWith('.json') ? dirname(path) : path));
}

/** `{ "packages/kernel/src/bus.ts": "1234:1733660000000.123", … }`: every source's size and mtime. */
export function buildInputs(root) {
  const listing = {};
  const add = (path) => {
    const stat = statSync(join(root, path));
    listing[path] = `${stat.size}:${stat.mtimeMs}`;
  };
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (skipped(entry.name)) continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else add(path);
    }
  };
  for (const name of ROOT_INPUTS) if (existsSync(join(root, name))) add(name);
  for (const project of projects(root)) walk(relative(root, join(root, project)).split('\\').join('/'));
  return listing;
}

/** "packages/a/src/x.ts changed, packages/a/src/y.ts was removed and 3 more": what differs between two listings. */
function describeChanges(before, now) {
  const changes = [];
  for (const [path, value] of Object.entries(now)) {
    if (before[path] === undefined) changes.push(`${path} was added`);
    else if (before[path] !== value) changes.push(`${path} changed`);
  }
  for (const path of Object.keys(before)) if (now[path] === undefined) changes.push(`${path} was removed`);
  const shown = changes.slice(0, 3).join(', ');
  return changes.length > 3 ? `${shown} and ${changes.length - 3} more` : shown;
}

/** `{ needed: false }`, or `{ needed: true, reason }`; `inputs` is the listing to record once the build succeeds. */
export function buildState(root, stamp, inputs = buildInputs(root)) {
  const missing = [...projects(root).map((project) => join(project, 'dist')), ...BUNDLES].find((path) => !existsSync(join(root, path)));
  if (missing !== undefined) return { needed: true, reason: `not built yet (no ${missing.split('\\').join('/')})`, inputs };
  if (stamp.build === undefined) return { needed: true, reason: 'no record of a build by this script', inputs };
  const changes = describeChanges(stamp.build, inputs);
  if (changes !== '') return { needed: true, reason: `${changes} since the last build`, inputs };
  return { needed: false, inputs };
}

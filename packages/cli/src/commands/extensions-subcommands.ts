import { Option, type Command } from 'commander';
import type { IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/**
 * `airlock extensions list | info | add | check | new | catalog | search`. Each command's module loads only when
 * it runs, so `airlock call` never pays for the scaffolder or the package-manager code.
 */
export function extensionSubcommands(parent: Command, globals: (cmd: Command) => GlobalOptions, done: (code: number) => void, io: IO): void {
  parent
    .command('list')
    .description('the same as `airlock extensions`: each extension the settings load, and its diagnostics')
    .action(async (_opts: unknown, cmd: Command) => done(await (await import('./extensions.js')).extensionsCommand(globals(cmd), io)));

  parent
    .command('info')
    .description("one extension's manifest, options (types and defaults), tools, hooks and the commands it brings; a package installed nowhere here is looked up on the registry")
    .argument('<name>', 'its name, package name or path (as `airlock extensions` lists it, installed here, or on the registry)')
    .action(async (name: string, _opts: unknown, cmd: Command) => done(await (await import('./extensions-info.js')).extensionsInfoCommand({ name }, globals(cmd), io)));

  parent
    .command('add')
    .description("check an extension, show what it declares and ask, install it (Airlock's own @airlock/* from the CLI's copy, offline), pin it in airlock-lock.json and add it to the project settings (--user: for every project of this user)")
    .argument('<package>', 'an npm package name (with an optional @version), a folder, or a .tgz made by `npm pack`')
    .option('--user', "install into the user's extension folder (~/.config/airlock/extensions) and add it to the user settings, for every project")
    .option('--yes', 'do not ask on a terminal (what the package declares is still shown)')
    .action(async (spec: string, opts: { user?: boolean; yes?: boolean }, cmd: Command) => done(await (await import('./extensions-add.js')).extensionsAddCommand({ spec, ...opts }, globals(cmd), io)));

  parent
    .command('update')
    .description('move each package `extensions add` pinned (or the one named) to its latest release, showing what changed in what it declares')
    .argument('[name]', 'one package name (default: every pinned package of the settings)')
    .option('--user', 'the packages added to the user settings')
    .option('--yes', 'do not ask on a terminal (the changes are still shown)')
    .action(async (name: string | undefined, opts: { user?: boolean; yes?: boolean }, cmd: Command) =>
      done(await (await import('./extensions-update.js')).extensionsUpdateCommand({ ...(name === undefined ? {} : { name }), ...opts }, globals(cmd), io)),
    );

  parent
    .command('remove')
    .description('take an extension out of the settings, its pin out of the lock, and uninstall it')
    .argument('<name>', 'its package name')
    .option('--user', 'from the user settings and extension folder')
    .action(async (name: string, opts: { user?: boolean }, cmd: Command) => done(await (await import('./extensions-remove.js')).extensionsRemoveCommand({ name, ...opts }, globals(cmd), io)));

  parent
    .command('check')
    .description('check a package before publishing or installing it: manifest, kernel range, published files, entry, README, tests, and a dry load in a throwaway host')
    .argument('[package]', 'a package folder (default: the current one) or a .tgz made by `npm pack`')
    .action(async (target: string | undefined, _opts: unknown, cmd: Command) => done(await (await import('./extensions-check.js')).extensionsCheckCommand({ ...(target === undefined ? {} : { target }) }, globals(cmd), io)));

  parent
    .command('new')
    .description('make a new extension package: manifest, TypeScript source, a passing test, README and tsconfig')
    .argument('<name>', 'the package name, e.g. airlock-word-count or @acme/airlock-guard')
    .addOption(new Option('--tool', 'a package that adds a tool').conflicts('policy'))
    .addOption(new Option('--policy', 'a package that judges calls (a tool_call:authorize hook)').conflicts('tool'))
    .option('--dir <dir>', 'the folder to make (default: ./<name without its scope>); it must not exist or must be empty')
    .action(async (name: string, opts: { tool?: boolean; policy?: boolean; dir?: string }, cmd: Command) =>
      done(await (await import('./extensions-new.js')).extensionsNewCommand({ name, ...opts }, globals(cmd), io)),
    );

  parent
    .command('catalog')
    .description('the catalog of extension packages in a folder, a tarball or the registry: kind, kernel range, tools, hooks, and options (options need trust)')
    .argument('[source...]', 'a package folder, a folder of packages (node_modules), a workspace, or a .tgz made by `npm pack` (default: the workspace around the current folder, else the current folder); with --registry, words to search for')
    .option('--registry', "list the configured npm registry's extension packages (keyword airlock-extension) instead of a folder")
    .option('--write', "write the workspace's docs/catalog.md instead of printing it")
    .action(async (source: string[], opts: { write?: boolean; registry?: boolean }, cmd: Command) =>
      done(await (await import('./extensions-catalog.js')).extensionsCatalogCommand({ source, ...opts }, globals(cmd), io)),
    );

  parent
    .command('search')
    .description("find extension packages in the configured npm registry (keyword airlock-extension): name, version, kind, kernel range and whether this CLI can load each")
    .argument('<words...>', 'words to look for in package names and descriptions')
    .option('--limit <n>', 'at most this many packages (default 20, at most 250)')
    .action(async (words: string[], opts: { limit?: string }, cmd: Command) => done(await (await import('./extensions-search.js')).extensionsSearchCommand({ words, ...opts }, globals(cmd), io)));
}

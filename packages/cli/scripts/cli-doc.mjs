// docs/cli-reference.md, made of the real program's own help: `airlock --help`, then `--help` of
// every command it lists, and of every subcommand those list (extension-contributed ones of the
// default set included), so the reference cannot drift from the program. Run in an empty temp
// folder with a temp HOME, so no settings of yours change what loads. `node scripts/cli-doc.mjs
// --write` (after `pnpm build`) rewrites the page; test/e2e/cli-reference.test.ts fails while the
// page and the program differ.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_DOC = fileURLToPath(new URL('../../../docs/cli-reference.md', import.meta.url));
export const CLI_BIN = fileURLToPath(new URL('../bin/airlock.mjs', import.meta.url));

/**
 * The commands a help text lists under "Commands:", without `help`.
 *
 * @example
 * commandsIn('Commands:\n  call [options] <tool>  run one call\n  help [command]  display help'); // ['call']
 */
export function commandsIn(help) {
  const section = help.split(/^Commands:$/m)[1];
  if (section === undefined) return [];
  const names = [];
  for (const line of section.split('\n')) {
    const match = /^ {2}([a-z][\w:-]*)/.exec(line);
    if (match && match[1] !== 'help') names.push(match[1]);
  }
  return names;
}

/**
 * The whole page from `help(argv)`, which returns what `airlock ...argv --help` prints: the
 * top-level help, then one section per command, depth first, in the order the program lists them.
 *
 * @example
 * renderCliReference((argv) => runHelp(CLI_BIN, argv, dir)).startsWith('# CLI reference'); // true
 */
export function renderCliReference(help) {
  const out = [
    '# CLI reference',
    '',
    '<!-- Generated from the program\'s own --help by packages/cli/scripts/cli-doc.mjs: run',
    '     `pnpm --filter @airlock/cli docs:cli` (after `pnpm build`). Do not edit. -->',
    '',
    'Every command of `airlock` with its options, as `airlock <command> --help` prints them, with the',
    'default extensions loaded (a command marked "from <package>" exists only while the settings load',
    'that extension). What the commands do, their output and exit codes: [cli.md](cli.md).',
    '',
  ];
  const visit = (argv) => {
    const text = help(argv).trimEnd();
    out.push(`## \`airlock${argv.map((a) => ` ${a}`).join('')}\``, '', '```text', text, '```', '');
    for (const name of commandsIn(text)) visit([...argv, name]);
  };
  visit([]);
  return out.join('\n');
}

/**
 * What `node bin ...argv --help` prints, run in `cwd` with HOME and XDG_CONFIG_HOME there and no
 * terminal (so the width is commander's default, 80 columns).
 */
export function runHelp(bin, argv, cwd) {
  const env = { PATH: process.env.PATH ?? '', HOME: cwd, XDG_CONFIG_HOME: join(cwd, '.config'), LANG: 'C.UTF-8' };
  return execFileSync(process.execPath, [bin, ...argv, '--help'], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-cli-doc-'));
  try {
    const next = renderCliReference((argv) => runHelp(CLI_BIN, argv, dir));
    const doc = existsSync(CLI_DOC) ? readFileSync(CLI_DOC, 'utf8') : '';
    if (!process.argv.includes('--write')) {
      process.stdout.write(next === doc ? 'docs/cli-reference.md is up to date\n' : 'docs/cli-reference.md is out of date: run with --write\n');
      process.exitCode = next === doc ? 0 : 1;
    } else if (next !== doc) {
      writeFileSync(CLI_DOC, next);
      process.stdout.write('docs/cli-reference.md: rewritten from the commands\' help\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

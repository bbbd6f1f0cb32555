import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script (it runs under node without a build step of its own); no types.
import { CLI_DOC, commandsIn, renderCliReference, runHelp } from '../../packages/cli/scripts/cli-doc.mjs';
import { BIN } from './harness.js';

type Render = (help: (argv: string[]) => string) => string;
const render = renderCliReference as Render;
const help = runHelp as (bin: string, argv: string[], cwd: string) => string;

describe('docs/cli-reference.md is the real program\'s --help', () => {
  it('is fresh (run `pnpm --filter @airlock/cli docs:cli` after `pnpm build` when a command changes)', () => {
    const dir = makeTempDir('airlock-cli-doc-');
    expect(render((argv) => help(BIN, argv, dir))).toBe(readFileSync(CLI_DOC as string, 'utf8'));
  }, scaledMs(60_000));

  it('has every command the program lists, extension-contributed subcommands included', () => {
    const doc = readFileSync(CLI_DOC as string, 'utf8');
    const dir = makeTempDir('airlock-cli-doc-');
    const top = help(BIN, [], dir);
    const commands = commandsIn(top) as string[];
    expect(commands).toEqual(expect.arrayContaining(['run', 'call', 'batch', 'tools', 'extensions', 'mcp', 'serve', 'audit', 'policy']));
    for (const name of commands) expect(doc).toContain(`## \`airlock ${name}\``);
    // audit and policy come from the default extensions audit-log and path-policy, with subcommands.
    expect(doc).toContain('## `airlock audit verify`');
    expect(doc).toContain('## `airlock policy explain`');
    expect(doc).toContain('(from\n@airlock/audit-log)');
  }, scaledMs(60_000));

  it('follows what loads: with audit-log left out in the user settings, its commands are gone', () => {
    const dir = makeTempDir('airlock-cli-doc-');
    mkdirSync(join(dir, '.config', 'airlock'), { recursive: true });
    writeFileSync(join(dir, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: ['-@airlock/audit-log'] }));
    const next = render((argv) => help(BIN, argv, dir));
    expect(next).not.toContain('## `airlock audit');
    expect(next).toContain('## `airlock policy explain`');
  }, scaledMs(60_000));

  it('reads the command names from a help text, without help', () => {
    const text = 'Usage: x\n\nOptions:\n  -h, --help  help\n\nCommands:\n  verify [options] [target]  check\n                             more words\n  tail [file]  last\n  help [command]  display help\n';
    expect(commandsIn(text)).toEqual(['verify', 'tail']);
    expect(commandsIn('Usage: x\n\nOptions:\n  -h, --help  help\n')).toEqual([]);
  });
});

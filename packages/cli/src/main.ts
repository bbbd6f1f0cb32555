import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { displayText } from '@airlock/toolkit/display';
import { extensionSubcommands } from './commands/extensions-subcommands.js';
import { EXIT, processIO, UsageError, type IO } from './io.js';
import type { DeclaredCommands } from '@airlock/host';
import type { GlobalOptions } from './global-options.js';
import { CLI_VERSION } from './version.js';

// Each command's module is imported when that command runs, never before: the bundle splits at
// these imports (scripts/bundle.mjs), so `--help`, `--version` and a small `call` compile only
// what they run. The agent, its provider SDKs, MCP, serve and the interactive mode stay unread
// until a command needs them.

/**
 * The `airlock` program. `run` returns the exit code instead of exiting, so tests can drive it
 * in-process as well as through the real binary.
 */
export async function run(argv: readonly string[], io: IO = processIO()): Promise<number> {
  let code: number = EXIT.ok;
  let declared: DeclaredCommands | undefined;
  try {
    const program = buildProgram(io, (c) => (code = c));
    declared = await addExtensionCommands(program, argv, io, (c) => (code = c));
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.unknownCommand' && declared !== undefined) io.stderr.write(failedExtensionsNote(declared));
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    // Error messages quote what was given (file names, settings, JSON): shown, never interpreted.
    if (error instanceof UsageError) {
      io.stderr.write(`airlock: ${showError(error.message)}\n${error.hint ? `${showError(error.hint)}\n` : ''}`);
      return EXIT.usage;
    }
    const e = error as { code?: string; message?: string };
    io.stderr.write(`airlock: ${showError(e.message ?? String(error))}\n`);
    return EXIT.usage;
  }
}

/**
 * The commands extensions declare, added to `program` when this command line may name one:
 * help without a command word lists them, and a word that is not a built-in may be one. Only
 * settings and manifests are read for that; the module of the word itself is imported (for its
 * arguments and options), and a host opens only when it runs. Built-in words read none of this.
 * Returns what was found, for the note on an unknown command.
 */
async function addExtensionCommands(program: Command, argv: readonly string[], io: IO, done: (code: number) => void): Promise<DeclaredCommands | undefined> {
  const line = commandWords(program, argv);
  if (line === undefined) return undefined; // a bad global option, or --version: the real parse answers
  const { word, topic, helpAsked, globals } = line;
  // `help <command>` may name an extension's command, but `help call` needs none.
  if (word !== undefined && word !== 'help' && BUILTIN_COMMANDS.includes(word)) return undefined;
  if (word === 'help' && topic !== undefined && BUILTIN_COMMANDS.includes(topic)) return undefined;
  const listing = word === undefined || word === 'help' || helpAsked;
  const { addDeclaredCommands, defineDeclaredCommand, listDeclaredCommands } = await import('./extension-commands.js');
  let declared: DeclaredCommands;
  try {
    // Help never asks to trust the folder: a remembered answer counts, a prompt waits for a real command.
    declared = await listDeclaredCommands(globals, io, { ask: !listing });
  } catch (error) {
    if (!listing) throw error;
    io.stderr.write(`airlock: extension commands are not listed: ${showError((error as Error).message ?? String(error))}\n`);
    return undefined;
  }
  const added = addDeclaredCommands(program, declared.commands, io);
  const target = added.get((word === 'help' ? topic : word) ?? '');
  if (target !== undefined) await defineDeclaredCommand(target.cmd, target.entry, io, done);
  return declared;
}

/**
 * The command word (and the word after it, for `help <command>`), whether help is asked for, and
 * the global options, read from the command line with the program's own option parser, silently;
 * the program is left as it was, so the real parse that follows sees the line afresh.
 */
function commandWords(program: Command, argv: readonly string[]): { word?: string; topic?: string; helpAsked: boolean; globals: GlobalOptions } | undefined {
  const output = { ...program.configureOutput() };
  program.saveStateBeforeParse();
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  try {
    const { operands, unknown } = program.parseOptions([...argv]);
    const [word, topic] = operands;
    // The command's own options are not the program's: its help flag is among the unknown ones.
    const helpAsked = unknown.includes('--help') || unknown.includes('-h');
    return { ...(word === undefined ? {} : { word }), ...(topic === undefined ? {} : { topic }), helpAsked, globals: { ...program.opts() } as GlobalOptions };
  } catch {
    return undefined;
  } finally {
    program.configureOutput(output);
  }
}

/**
 * An unknown command may be one an extension would have brought: name each extension that could
 * not be read or was skipped (an untrusted project's), and why, so the person can fix that instead.
 */
function failedExtensionsNote(declared: DeclaredCommands): string {
  return declared.notLoading
    .map((r) => {
      const why = declared.diagnostics.find((d) => d.extension === r.name || d.extension === r.spec);
      return `airlock: extension ${showError(r.name)} did not load, so no command it brings is available${why === undefined ? '' : `: ${showError(why.message)}`}\n`;
    })
    .join('');
}

/**
 * An error's message keeps its lines; the values it quotes (a file's name, a settings entry, an
 * error's words) were shown on one line each where it was worded (displayFields, displayText),
 * so they are not escaped twice here, and whatever was not is still escaped.
 */
function showError(text: string): string {
  return displayText(text, { multiline: true, maxChars: 2000, escaped: true });
}

/** The CLI's own command words; `RESERVED_COMMANDS` in the host keeps extensions off them (a test checks both agree). */
export const BUILTIN_COMMANDS: readonly string[] = ['run', 'call', 'batch', 'tools', 'extensions', 'doctor', 'trust', 'sessions', 'replay', 'mcp', 'serve', 'help'];

/**
 * The providers `run --model` can name, for its help line, without loading the agent and its
 * provider SDKs to ask. A test checks they are @airlock/agent's PROVIDER_FACTORIES.
 */
export const PROVIDER_NAMES: readonly string[] = ['openai', 'anthropic', 'scripted'];

function buildProgram(io: IO, exit: (code: number) => void): Command {
  const program = new Command('airlock')
    .description('Run tool calls the way a model would, through Airlock: validation, policy, approval, redaction, audit.')
    .version(CLI_VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)')
    .option('-C, --cwd <dir>', 'run as if started in this folder')
    .option('-s, --settings <file>', 'use this settings file instead of discovering one')
    .option('--tools <names>', 'strict allowlist of tools, comma-separated ("" for none)')
    .option('--no-tools', 'enable no tools at all')
    .option('--exclude-tools <names>', 'leave these tools out (wins over --tools)')
    .option('--no-builtin-tools', 'leave out the built-in tools; extension tools stay')
    .option('--sequential', 'run the calls of a batch one after another')
    .addOption(new Option('--max-concurrency <n>', 'run at most n calls of a batch at once').argParser(positiveInt))
    .option('--trust', 'trust the project folder for this run (load its extensions)')
    .option('--no-trust', 'do not trust the project folder for this run')
    .option('--json', 'machine-readable output')
    .option('-v, --verbose', "show the stack trace behind a load problem (an extension's setup that threw)");

  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;
  const done = (code: number): void => exit(code);

  program
    .command('run')
    .description('run the agent: a model calls the tools through the full pipeline (print mode: -p)')
    .option('-p, --print <prompt>', 'run this prompt to the end and print the final answer')
    .option('-m, --model <provider:name>', `the model, e.g. scripted:demo.jsonl (providers: ${PROVIDER_NAMES.join(', ')})`)
    .option('--base-url <url>', "the provider API's address (OpenAI-compatible servers, proxies)")
    .addOption(new Option('--max-turns <n>', 'stop after n model requests (default 50)').argParser(positiveInt))
    .option('--resume [session]', "continue a recorded session: its id or a prefix (see `airlock sessions`), a transcript's path, or nothing for this project's newest")
    .option('--demo', 'the tour, offline: a scripted model shows every tool, policy, approval, redaction and the audit log in a sandbox project')
    .option('--demo-dir <dir>', 'with --demo: make the sandbox project in this new or empty folder (default: a new temp folder)')
    .action(async (opts: { print?: string; model?: string; baseUrl?: string; maxTurns?: number; resume?: string | true; demo?: boolean; demoDir?: string }, cmd: Command) => {
      if (opts.demo === true) return done(await (await import('./commands/run-demo.js')).runDemo(opts, globals(cmd), io));
      if (opts.demoDir !== undefined) throw new UsageError('--demo-dir goes with --demo.', 'Example: airlock run --demo --demo-dir ./tour');
      done(await (await import('./commands/run.js')).runCommand(opts, globals(cmd), io));
    });

  program
    .command('call')
    .description('run one tool call through the full pipeline')
    .argument('<tool>', 'the tool name, as a model would send it')
    .argument('[json-args]', 'the arguments as a JSON object, or - to read them from standard input')
    .addOption(new Option('--timeout-ms <ms>', 'time limit for the call').argParser(positiveInt))
    .option('--id <id>', 'the tool call id', 'call_1')
    .action(async (tool: string, args: string | undefined, opts: { timeoutMs?: number; id: string }, cmd: Command) =>
      done(await (await import('./commands/call.js')).callCommand({ tool, args, ...opts }, globals(cmd), io)),
    );

  program
    .command('batch')
    .description('run an array of {id?, name, arguments} as one batch (one assistant message)')
    .argument('<file>', 'a JSON file, or - for standard input')
    .option('--events', 'print a JSON line for every event and every result message')
    .action(async (file: string, opts: { events?: boolean }, cmd: Command) => done(await (await import('./commands/batch.js')).batchCommand({ file, ...opts }, globals(cmd), io)));

  program
    .command('tools')
    .description('show the registry, the enabled set (and why each other tool is left out) and provider schemas')
    .addOption(new Option('--provider <name>', 'print the tool definitions as this API expects them').choices(['openai', 'anthropic', 'gemini', 'mcp']))
    .action(async (opts: { provider?: 'openai' | 'anthropic' | 'gemini' | 'mcp' }, cmd: Command) => done(await (await import('./commands/tools.js')).toolsCommand(opts, globals(cmd), io)));

  program
    .command('doctor')
    .description('show the state of Airlock here on one screen: version, trust, settings files, sandbox, audit log, each extension and every problem with its fix (exits 2 when something is broken)')
    .action(async (_opts: unknown, cmd: Command) => done(await (await import('./commands/doctor.js')).doctorCommand(globals(cmd), io)));

  const extensions = program
    .command('extensions')
    .description('show each extension: version, source, layer, kernel range and compatibility, what it provides, its diagnostics (also: list, info, add, update, remove, check, new, catalog, search)')
    .allowExcessArguments(true)
    .action(async (_opts: unknown, cmd: Command) => {
      (await import('./subcommand-words.js')).refuseUnknownSubcommand(cmd);
      done(await (await import('./commands/extensions.js')).extensionsCommand(globals(cmd), io));
    });
  extensionSubcommands(extensions, globals, done, io);

  program
    .command('trust')
    .description('trust a project folder (and its subfolders), so its settings may load extensions')
    .argument('[dir]', 'the folder (default: the current one)')
    .option('--revoke', 'stop trusting it (remember "untrusted")')
    .action(async (dir: string | undefined, opts: { revoke?: boolean }, cmd: Command) => done(await (await import('./commands/trust.js')).trustCommand({ dir, ...opts }, globals(cmd), io)));

  program
    .command('sessions')
    .description("list this project's recorded sessions, newest first (for replay and run --resume)")
    .action(async (_opts: unknown, cmd: Command) => done(await (await import('./commands/sessions.js')).sessionsCommand(globals(cmd), io)));

  program
    .command('replay')
    .description("judge a recorded session's tool calls by today's policy: replay-safe tools run again and are compared, others are only judged")
    .argument('<session>', 'a session id or its prefix (see `airlock sessions`), or the path of a transcript file')
    .option('--strict', 'exit 1 when any call would be decided differently or give a different result')
    .action(async (session: string, opts: { strict?: boolean }, cmd: Command) => done(await (await import('./commands/replay.js')).replayCommand({ session, ...opts }, globals(cmd), io)));

  program
    .command('mcp')
    .description('serve the enabled tools to an MCP client over stdio (the client starts `airlock --cwd DIR mcp`)')
    .action(async (_opts: unknown, cmd: Command) => done(await (await import('./commands/mcp.js')).mcpCommand(globals(cmd), io)));

  program
    .command('serve')
    .description('answer JSON-RPC 2.0 requests (tools/list, tools/call, …) from another program over stdin/stdout (docs/rpc.md)')
    .option('--stdio', 'JSON lines on stdin and stdout (the only transport so far)')
    .addOption(new Option('--dialog-timeout-ms <ms>', 'a dialog that sets no time limit of its own and that the client leaves unanswered this long is "no" (default 120000; the approval prompt has its own, @airlock/approval\'s timeoutMs)').argParser(positiveInt))
    .addOption(new Option('--max-line-bytes <n>', 'refuse a longer request line (default 8388608)').argParser(positiveInt))
    .option('--model <provider:name>', 'the model agent/prompt uses when a request names none (openai:…, anthropic:…, scripted:FILE)')
    .option('--base-url <url>', "the provider API's address for agent/prompt (OpenAI-compatible servers, proxies)")
    .action(async (opts: { stdio?: boolean; dialogTimeoutMs?: number; maxLineBytes?: number; model?: string; baseUrl?: string }, cmd: Command) => done(await (await import('./commands/serve.js')).serveCommand(opts, globals(cmd), io)));

  return program;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('Give a whole number ≥ 1.');
  return n;
}

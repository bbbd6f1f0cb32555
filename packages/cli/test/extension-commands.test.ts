import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { RESERVED_COMMANDS } from '@airlock/host';
import { run } from '../src/index.js';
import { BUILTIN_COMMANDS } from '../src/main.js';
import { testIO } from './test-io.js';

/**
 * Extensions bring their own `airlock <name>` commands (`api.registerCommand`), through the real
 * CLI in-process with real settings and single-file extensions on disk.
 */

// Each run opens a host that loads the whole default set.
vi.setConfig({ testTimeout: 90_000 });

/** A single-file extension bringing `airlock <name>`: it prints its words and options, and what preflight says of a read. */
function greeter(extension: string, command: string): string {
  return `
import { Type } from 'typebox';
export default {
  name: ${JSON.stringify(extension)},
  setup(api) {
    api.registerCommand({
      name: ${JSON.stringify(command)},
      summary: 'greet someone',
      arguments: [{ name: 'who', description: 'whom to greet', required: true }, { name: 'more', description: 'others', variadic: true }],
      options: Type.Object({
        times: Type.Integer({ minimum: 1, default: 1, description: 'how often', short: 'n' }),
        shout: Type.Optional(Type.Boolean({ description: 'in capitals' })),
        polite: Type.Boolean({ default: true, description: 'say please' }),
      }),
      run({ args, options, stdout, json, cwd }) {
        const text = args.join('+');
        const words = Array.from({ length: options.times }, () => (options.shout ? text.toUpperCase() : text));
        stdout.write(json ? JSON.stringify({ words, polite: options.polite, cwd }) + '\\n' : words.join(' ') + (options.polite ? ' please' : '') + '\\n');
        return args[0] === 'fail' ? 1 : 0;
      },
    });
  },
};
`;
}

/** A home and a project; the user settings load the given single-file extensions. */
function machine(files: Record<string, string>) {
  const base = makeTempDir('airlock-cli-ext-commands-');
  const home = join(base, 'home');
  const dir = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(join(home, 'ext'), { recursive: true });
  mkdirSync(dir, { recursive: true });
  const specs: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(home, 'ext', name), text);
    specs.push(join(home, 'ext', name));
  }
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: specs }));
  const airlock = async (args: string[]) => {
    const io = testIO(dir, home);
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  return { dir, airlock };
}

describe.sequential('extension commands', () => {
  it('a single-file extension brings a command that runs with parsed arguments and checked options', async () => {
    const m = machine({ 'greeter.mjs': greeter('greeter', 'greet') });
    const plain = await m.airlock(['greet', 'ada', 'bob']);
    expect(plain).toMatchObject({ code: 0, out: 'ada+bob please\n' });
    const options = await m.airlock(['greet', '-n', '2', '--shout', '--no-polite', 'ada']);
    expect(options).toMatchObject({ code: 0, out: 'ADA ADA\n' });
    const json = await m.airlock(['--json', 'greet', 'ada']);
    expect(JSON.parse(json.out)).toEqual({ words: ['ada'], polite: true, cwd: m.dir });
    // The command's exit code is the CLI's.
    expect((await m.airlock(['greet', 'fail'])).code).toBe(1);
    // A value the schema refuses is a usage error naming the flag; nothing ran.
    const bad = await m.airlock(['greet', '--times', '0', 'ada']);
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/--times: expected an integer ≥ 1, got 0/);
    // A missing required argument too.
    expect((await m.airlock(['greet'])).code).toBe(2);
  });

  it('--help lists extension commands with the extension that brings each, next to the built-in ones', async () => {
    const m = machine({ 'greeter.mjs': greeter('greeter', 'greet') });
    const help = await m.airlock(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/greet \[options\] <who> \[more\.\.\.\]\s+greet someone \(from extension greeter\)/);
    expect(help.out).toMatch(/\bcall\b/);
    const own = await m.airlock(['greet', '--help']);
    expect(own.out).toContain('--times <times>');
    expect(own.out).toContain('--no-polite');
    // `help <command>` finds extension commands too.
    expect((await m.airlock(['help', 'greet'])).out).toContain('--times <times>');
    // Help still works when the settings cannot be read, and says why extension commands are missing.
    writeFileSync(join(m.dir, '.airlockrc.json'), '{ not json');
    const broken = await m.airlock(['--help']);
    expect(broken.code).toBe(0);
    expect(broken.out).toMatch(/\bcall\b/);
    expect(broken.err).toMatch(/extension commands are not listed: .*\.airlockrc\.json/s);
  });

  it('an unknown command names close ones, extension commands included', async () => {
    const m = machine({ 'greeter.mjs': greeter('greeter', 'greet') });
    const typo = await m.airlock(['gret', 'ada']);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown command 'gret'/);
    expect(typo.err).toMatch(/Did you mean greet\?/);
  });

  it('a command that runs on its own and has subcommands: a word that is none of them is named as such, with the close ones (built-in extensions too)', async () => {
    const reports = `
export default {
  name: 'reports',
  setup(api) {
    api.registerCommand({
      name: 'report',
      summary: 'the latest report',
      run({ stdout }) { stdout.write('latest\\n'); return 0; },
      subcommands: [
        { name: 'weekly', summary: 'the weekly one', run({ stdout }) { stdout.write('weekly\\n'); return 0; } },
        { name: 'monthly', summary: 'the monthly one', run({ stdout }) { stdout.write('monthly\\n'); return 0; } },
      ],
    });
  },
};
`;
    const m = machine({ 'reports.mjs': reports });
    expect(await m.airlock(['report'])).toMatchObject({ code: 0, out: 'latest\n' });
    expect(await m.airlock(['report', 'weekly'])).toMatchObject({ code: 0, out: 'weekly\n' });
    const typo = await m.airlock(['report', 'weekyl']);
    expect(typo.code).toBe(2);
    expect(typo.out).toBe('');
    expect(typo.err).toContain('report: no subcommand "weekyl". Did you mean "weekly"?');
    expect(typo.err).toContain('Its subcommands: weekly, monthly');
    const builtin = await m.airlock(['extensions', 'ad', 'x']);
    expect(builtin.code).toBe(2);
    expect(builtin.err).toContain('extensions: no subcommand "ad". Did you mean "add"?');
    expect(builtin.err).not.toContain('too many arguments');
  });

  it('an extension cannot take a built-in command, nor one another extension brings: a load diagnostic says which', async () => {
    const m = machine({
      'greeter.mjs': greeter('greeter', 'greet'),
      'copycat.mjs': greeter('copycat', 'greet'),
      'hijack.mjs': greeter('hijack', 'call'),
    });
    const list = await m.airlock(['--json', 'extensions']);
    const report = JSON.parse(list.out) as { extensions: { name: string; status: string }[]; diagnostics: { code: string; extension?: string; message: string }[] };
    const status = Object.fromEntries(report.extensions.map((e) => [e.name, e.status]));
    expect(status).toMatchObject({ greeter: 'loaded', copycat: 'failed', hijack: 'failed' });
    const clash = report.diagnostics.find((d) => d.extension === 'copycat')!;
    expect(clash.code).toBe('AIRLOCK_EXTENSION_COMMAND_INVALID');
    expect(clash.message).toContain('already brought by extension "greeter"');
    const builtin = report.diagnostics.find((d) => d.extension === 'hijack')!;
    expect(builtin.message).toContain("one of airlock's own commands");
    // The first one keeps its command; `call` is still the pipeline (it names an unknown tool, not a greeting).
    expect((await m.airlock(['greet', 'ada'])).out).toBe('ada please\n');
    const call = await m.airlock(['call', 'nosuchtool', '{}']);
    expect(call.out).not.toContain('please');
  });

  it('running a command whose extension failed to load says which extension and why', async () => {
    // It registered its command before failing: the rollback takes the command away with the rest.
    const broken = `export default { name: 'broken', setup(api) { api.registerCommand({ name: 'report', summary: 'r', run: () => 0 }); throw new Error('database is down'); } };\n`;
    const m = machine({ 'broken.mjs': broken });
    const result = await m.airlock(['report']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/unknown command 'report'/);
    expect(result.err).toMatch(/extension broken did not load.*database is down/);
  });

  it("a command from an untrusted project's extension is not run: the unknown command says the project is not trusted", async () => {
    const m = machine({});
    writeFileSync(join(m.dir, 'greeter.mjs'), greeter('greeter', 'greet'));
    writeFileSync(join(m.dir, '.airlockrc.json'), JSON.stringify({ extensions: ['./greeter.mjs'] }));
    const untrusted = await m.airlock(['--no-trust', 'greet', 'ada']);
    expect(untrusted.code).toBe(2);
    expect(untrusted.out).toBe('');
    expect(untrusted.err).toMatch(/extension greeter did not load.*is not trusted/s);
    expect(await m.airlock(['--trust', 'greet', 'ada'])).toMatchObject({ code: 0, out: 'ada please\n' });
  });

  it('a command marked keepIfSetupFails stays when its setup throws afterwards; the tool it registered does not', async () => {
    const doctor = `export default { name: 'doctor', setup(api) {
      api.registerCommand({ name: 'doctor', summary: 'why setup failed', keepIfSetupFails: true, run: ({ stdout }) => { stdout.write('rule 3 is broken\\n'); return 1; } });
      api.registerTool({ name: 'doctor_tool', label: 'd', description: 'd', parameters: { type: 'object', properties: {} }, execute: async () => ({ content: [] }) });
      throw new Error('rule 3 is broken');
    } };\n`;
    const m = machine({ 'doctor.mjs': doctor });
    expect(await m.airlock(['doctor'])).toMatchObject({ code: 1, out: 'rule 3 is broken\n' });
    const tools = await m.airlock(['--json', 'tools']);
    expect(tools.out).toContain('"read"');
    expect(tools.out).not.toContain('doctor_tool');
  });

  it('every command word the CLI defines is reserved in the host, so no extension can take it', async () => {
    for (const word of BUILTIN_COMMANDS) expect(RESERVED_COMMANDS).toContain(word);
    // And the CLI's help lists only those built-ins (plus extension commands).
    const m = machine({});
    const help = await m.airlock(['--help']);
    // Each entry starts at two spaces and runs until the next; the audit-log extension's says so.
    const entries = help.out.split('Commands:')[1]!.split(/\n(?= {2}[a-z])/).map((e) => e.trim().replace(/\s+/g, ' ')).filter((e) => e !== '');
    const own = entries.filter((e) => !/\(from extension [a-z-]+\)$/.test(e)).map((e) => e.split(' ')[0]!);
    expect(entries.some((e) => e.startsWith('audit ') && e.endsWith('(from extension audit-log)'))).toBe(true);
    for (const word of own) expect(BUILTIN_COMMANDS).toContain(word);
  });
});

describe('the CLI package', () => {
  /** Extensions live under extensions/<tools|policy|lib>/: their package names. */
  const extensionPackages = () => {
    const root = join(import.meta.dirname, '../../../extensions');
    return readdirSync(root)
      .flatMap((group) => (existsSync(join(root, group)) && !group.includes('.') ? readdirSync(join(root, group)).map((d) => join(root, group, d)) : []))
      .filter((d) => existsSync(join(d, 'package.json')))
      .map((d) => (JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { name: string }).name);
  };

  it('depends on no extension at run time, and its source imports none (they bring their commands themselves)', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const names = extensionPackages();
    expect(names).toEqual(expect.arrayContaining(['@airlock/audit-log', '@airlock/path-policy']));
    expect(Object.keys(pkg.dependencies).filter((d) => names.includes(d))).toEqual([]);
    const src = join(import.meta.dirname, '../src');
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const imported = files.flatMap((f) => [...readFileSync(join(src, f), 'utf8').matchAll(/(?:from |import\()'(@airlock\/[a-z-]+)/g)].map((m) => `${f}: ${m[1]}`));
    expect(imported.filter((line) => names.some((n) => line.endsWith(n)))).toEqual([]);
  });
});

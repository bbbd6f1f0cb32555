import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { RESERVED_COMMANDS } from '@airlock/host';
import { run } from '../src/index.js';
import { BUILTIN_COMMANDS } from '../src/main.js';
import { testIO } from './test-io.js';

/**
 * Extensions declare their own `airlock <name>` commands in their manifests (`airlock.commands`),
 * through the real CLI in-process with real settings and extension packages on disk. Each
 * package's setup and command module leave a marker file when they run, so a test can tell what
 * a command line made run.
 */

// A command that runs opens a host that loads the whole default set.
vi.setConfig({ testTimeout: scaledMs(90_000) });

/** A command module: `greet <who> [more...]` printing its words and options; importing it leaves `<markers>/<name>-module`. */
function greetModule(markers: string, name: string): string {
  return `
import { writeFileSync } from 'node:fs';
import { Type } from 'typebox';
writeFileSync(${JSON.stringify(join(markers, `${name}-module`))}, '');
export default {
  arguments: [{ name: 'who', description: 'whom to greet', required: true }, { name: 'more', description: 'others', variadic: true }],
  options: Type.Object({
    times: Type.Integer({ minimum: 1, default: 1, description: 'how often', short: 'n' }),
    shout: Type.Optional(Type.Boolean({ description: 'in capitals' })),
    polite: Type.Boolean({ default: true, description: 'say please' }),
  }),
  run({ args, options, stdout, json, cwd, extension }) {
    const text = args.join('+');
    const words = Array.from({ length: options.times }, () => (options.shout ? text.toUpperCase() : text));
    const from = extension.loaded ? extension.fromSetup?.greeting : undefined;
    stdout.write(json ? JSON.stringify({ words, polite: options.polite, cwd, from, salutation: extension.options?.salutation }) + '\\n' : words.join(' ') + (options.polite ? ' please' : '') + '\\n');
    return args[0] === 'fail' ? 1 : 0;
  },
};
`;
}

/** An extension whose setup leaves `<markers>/<name>-setup` and returns `{ greeting }` for its commands; `body` runs after that. */
function extensionModule(markers: string, name: string, body = ''): string {
  return `
import { writeFileSync } from 'node:fs';
import { Type } from 'typebox';
export default {
  name: ${JSON.stringify(name)},
  options: Type.Object({ salutation: Type.String({ default: 'hi' }) }),
  setup(api, options) {
    writeFileSync(${JSON.stringify(join(markers, `${name}-setup`))}, '');
    ${body}
    return { greeting: options.salutation + ' from setup' };
  },
};
`;
}

interface PackageSpec {
  /** The extension's name (also its package's and folder's). */
  name: string;
  /** The manifest's `commands` as written (a bad entry too). */
  commands: unknown;
  /** Files of the package by path, e.g. `src/greet.mjs`; `src/index.mjs` is the entry. */
  files: Record<string, string>;
}

/**
 * A home and a project; the user settings load the extension packages `packages` makes (folders
 * under `home/ext`), whose code leaves its markers in `markers`.
 */
function machine(packages: (markers: string) => PackageSpec[]) {
  const base = makeTempDir('airlock-cli-ext-commands-');
  const home = join(base, 'home');
  const dir = join(base, 'project');
  const markers = join(base, 'markers');
  for (const d of [join(home, '.config', 'airlock'), dir, markers]) mkdirSync(d, { recursive: true });
  const specs: string[] = [];
  for (const p of packages(markers)) {
    const root = join(home, 'ext', p.name);
    for (const [file, text] of Object.entries(p.files)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: p.name, version: '1.0.0', type: 'module', airlock: { extension: './src/index.mjs', kernel: '^1.0.0', commands: p.commands } }));
    specs.push(root);
  }
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: specs }));
  const airlock = async (args: string[]) => {
    const io = testIO(dir, home);
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  /** The markers left so far: `<name>-setup`, `<name>-module`. */
  const ran = () => readdirSync(markers).sort();
  const clear = () => {
    for (const f of readdirSync(markers)) rmSync(join(markers, f));
  };
  return { base, home, dir, markers, airlock, ran, clear };
}

/** The greeter package: `greet` declared in its manifest, from src/greet.mjs. */
function greeter(markers: string, name = 'greeter', word = 'greet', setupBody = ''): PackageSpec {
  return {
    name,
    commands: [{ name: word, summary: 'greet someone', module: './src/greet.mjs' }],
    files: { 'src/index.mjs': extensionModule(markers, name, setupBody), 'src/greet.mjs': greetModule(markers, name) },
  };
}

describe.sequential('extension commands', () => {
  it('a declared command runs with parsed arguments and checked options, and gets what its setup gave', async () => {
    const p = machine((markers) => [greeter(markers)]);
    const plain = await p.airlock(['greet', 'ada', 'bob']);
    expect(plain).toMatchObject({ code: 0, out: 'ada+bob please\n' });
    const options = await p.airlock(['greet', '-n', '2', '--shout', '--no-polite', 'ada']);
    expect(options).toMatchObject({ code: 0, out: 'ADA ADA\n' });
    const json = await p.airlock(['--json', 'greet', 'ada']);
    // The options its setup got (defaults filled in) and what setup returned reach the command.
    expect(JSON.parse(json.out)).toEqual({ words: ['ada'], polite: true, cwd: p.dir, from: 'hi from setup', salutation: 'hi' });
    // The command's exit code is the CLI's.
    expect((await p.airlock(['greet', 'fail'])).code).toBe(1);
    // A value the schema refuses is a usage error naming the flag; nothing ran, not even a setup.
    p.clear();
    const bad = await p.airlock(['greet', '--times', '0', 'ada']);
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/--times: expected an integer ≥ 1, got 0/);
    expect(p.ran()).toEqual(['greeter-module']);
    // A missing required argument too.
    expect((await p.airlock(['greet'])).code).toBe(2);
  });

  it('--help lists a declared command from the manifest alone: neither its module nor any setup runs', async () => {
    const p = machine((markers) => [greeter(markers)]);
    const help = await p.airlock(['--help']);
    expect(help.code).toBe(0);
    expect(help.out.replace(/\s+/g, ' ')).toMatch(/ greet greet someone \(from greeter\)/);
    expect(help.out).toMatch(/\bcall\b/);
    expect((await p.airlock(['help'])).out).toContain('(from greeter)');
    expect(p.ran()).toEqual([]);
    // The command's own help reads its module for the arguments and options, and still runs no setup.
    const own = await p.airlock(['greet', '--help']);
    expect(own.code).toBe(0);
    expect(own.out).toContain('Usage: airlock greet [options] <who> [more...]');
    expect(own.out).toContain('--times <times>');
    expect(own.out).toContain('--no-polite');
    expect((await p.airlock(['help', 'greet'])).out).toContain('--times <times>');
    expect(p.ran()).toEqual(['greeter-module']);
    // Running it is what opens the host.
    expect((await p.airlock(['greet', 'ada'])).code).toBe(0);
    expect(p.ran()).toEqual(['greeter-module', 'greeter-setup']);
  });

  it('help still works when the settings cannot be read, and says why extension commands are missing', async () => {
    const p = machine((markers) => [greeter(markers)]);
    writeFileSync(join(p.dir, '.airlockrc.json'), '{ not json');
    const broken = await p.airlock(['--help']);
    expect(broken.code).toBe(0);
    expect(broken.out).toMatch(/\bcall\b/);
    expect(broken.err).toMatch(/extension commands are not listed: .*\.airlockrc\.json/s);
  });

  it('an unknown command names close ones, extension commands included', async () => {
    const p = machine((markers) => [greeter(markers)]);
    const typo = await p.airlock(['gret', 'ada']);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown command 'gret'/);
    expect(typo.err).toMatch(/Did you mean greet\?/);
    expect(p.ran()).toEqual([]);
  });

  it('a command that runs on its own and has subcommands: a word that is none of them is named as such, with the close ones (built-in extensions too)', async () => {
    const reports = `
export default {
  run({ stdout }) { stdout.write('latest\\n'); return 0; },
  subcommands: [
    { name: 'weekly', summary: 'the weekly one', run({ stdout }) { stdout.write('weekly\\n'); return 0; } },
    { name: 'monthly', summary: 'the monthly one', run({ stdout }) { stdout.write('monthly\\n'); return 0; } },
  ],
};
`;
    const p = machine((markers) => [{ name: 'reports', commands: [{ name: 'report', summary: 'the latest report', module: './src/report.mjs' }], files: { 'src/index.mjs': extensionModule(markers, 'reports'), 'src/report.mjs': reports } }]);
    expect(await p.airlock(['report'])).toMatchObject({ code: 0, out: 'latest\n' });
    expect(await p.airlock(['report', 'weekly'])).toMatchObject({ code: 0, out: 'weekly\n' });
    const typo = await p.airlock(['report', 'weekyl']);
    expect(typo.code).toBe(2);
    expect(typo.out).toBe('');
    expect(typo.err).toContain('report: no subcommand "weekyl". Did you mean "weekly"?');
    expect(typo.err).toContain('Its subcommands: weekly, monthly');
    const builtin = await p.airlock(['extensions', 'ad', 'x']);
    expect(builtin.code).toBe(2);
    expect(builtin.err).toContain('extensions: no subcommand "ad". Did you mean "add"?');
    expect(builtin.err).not.toContain('too many arguments');
  });

  it('an extension cannot declare a built-in command, nor one another extension declares: a load diagnostic says which, and what to fix', async () => {
    const p = machine((markers) => [greeter(markers), greeter(markers, 'copycat'), greeter(markers, 'hijack', 'call')]);
    const list = await p.airlock(['--json', 'extensions']);
    const report = JSON.parse(list.out) as { extensions: { name: string; status: string }[]; diagnostics: { code: string; extension?: string; message: string }[] };
    const status = Object.fromEntries(report.extensions.map((e) => [e.name, e.status]));
    expect(status).toMatchObject({ greeter: 'loaded', copycat: 'failed', hijack: 'failed' });
    const clash = report.diagnostics.find((d) => d.extension?.endsWith('copycat'))!;
    expect(clash.code).toBe('AIRLOCK_EXTENSION_COMMAND_INVALID');
    expect(clash.message).toContain('declares the command "greet", which greeter already declares');
    expect(clash.message).toContain('Fix: rename the command');
    const builtin = report.diagnostics.find((d) => d.extension?.endsWith('hijack'))!;
    expect(builtin.code).toBe('AIRLOCK_EXTENSION_MANIFEST_INVALID');
    expect(builtin.message).toContain(`"airlock.commands[0].name" is "call", one of airlock's own commands`);
    // Neither ran any code: a manifest is read before anything loads.
    expect(p.ran().filter((f) => !f.startsWith('greeter-'))).toEqual([]);
    // The first one keeps its command; `call` is still the pipeline (it names an unknown tool, not a greeting).
    expect((await p.airlock(['greet', 'ada'])).out).toBe('ada please\n');
    const call = await p.airlock(['call', 'nosuchtool', '{}']);
    expect(call.out).not.toContain('please');
  });

  it('a manifest entry that cannot work is a clear error naming the extension and what to fix: the word is not offered', async () => {
    const p = machine((markers) => [
      { name: 'lost', commands: [{ name: 'lost', summary: 'gone', module: './src/nope.mjs' }], files: { 'src/index.mjs': extensionModule(markers, 'lost') } },
      { name: 'shouty', commands: [{ name: 'Shout!', summary: 'loud', module: './src/index.mjs' }], files: { 'src/index.mjs': extensionModule(markers, 'shouty') } },
    ]);
    const lost = await p.airlock(['lost']);
    expect(lost.code).toBe(2);
    expect(lost.err).toMatch(/unknown command 'lost'/);
    expect(lost.err).toMatch(/extension lost did not load.*"airlock\.commands\[0\]\.module" \(\.\/src\/nope\.mjs, of command "lost"\) names no file: .*nope\.mjs does not exist/s);
    const list = await p.airlock(['--json', 'extensions']);
    const diagnostics = (JSON.parse(list.out) as { diagnostics: { code: string; extension?: string; message: string }[] }).diagnostics;
    const shout = diagnostics.find((d) => d.extension?.endsWith('shouty'))!;
    expect(shout.code).toBe('AIRLOCK_EXTENSION_MANIFEST_INVALID');
    expect(shout.message).toContain('"airlock.commands[0].name" must be lowercase letters, digits and "-", starting with a letter (e.g. "my-report"), got "Shout!"');
    expect(shout.message).toContain('Fix: correct package.json#airlock');
    expect(p.ran()).toEqual([]);
  });

  it("a command module whose default export is not a command says so, naming the module and the fix; no setup ran", async () => {
    const p = machine((markers) => [{ name: 'odd', commands: [{ name: 'odd', summary: 'odd one', module: './src/odd.mjs' }], files: { 'src/index.mjs': extensionModule(markers, 'odd'), 'src/odd.mjs': 'export default { summary: "no run" };\n' } }]);
    const r = await p.airlock(['odd']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/The module of `airlock odd` \(.*odd\.mjs, declared by odd\) does not define a usable command: it needs a run function or subcommands\./);
    expect(r.err).toContain('defineCommand(');
    expect(p.ran()).toEqual([]);
  });

  it('running a command whose extension failed to load says which extension and why; it is still listed', async () => {
    const p = machine((markers) => [greeter(markers, 'broken', 'report', "throw new Error('database is down');")]);
    expect((await p.airlock(['--help'])).out).toContain('(from broken)');
    const result = await p.airlock(['report', 'ada']);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toMatch(/`airlock report` comes from extension broken \(broken\), which did not load \(failed\), so it cannot run\./);
    expect(result.err).toMatch(/database is down/);
    expect(result.err).toMatch(/Fix: /);
  });

  it('a command with needsSetup: false runs when its setup failed, told that it did not load; the tool the setup registered is gone', async () => {
    const doctor = `export default { needsSetup: false, run({ stdout, extension }) { stdout.write('rule 3 is broken; loaded: ' + extension.loaded + '\\n'); return 1; } };\n`;
    const p = machine((markers) => [
      {
        name: 'doctor',
        commands: [{ name: 'diagnose', summary: 'why setup failed', module: './src/doctor.mjs' }],
        files: {
          'src/index.mjs': extensionModule(markers, 'doctor', "api.registerTool({ name: 'doctor_tool', label: 'd', description: 'd', parameters: { type: 'object', properties: {} }, execute: async () => ({ content: [] }) }); throw new Error('rule 3 is broken');"),
          'src/doctor.mjs': doctor,
        },
      },
    ]);
    expect(await p.airlock(['diagnose'])).toMatchObject({ code: 1, out: 'rule 3 is broken; loaded: false\n' });
    const tools = await p.airlock(['--json', 'tools']);
    expect(tools.out).toContain('"read"');
    expect(tools.out).not.toContain('doctor_tool');
  });

  it("a command from an untrusted project's extension is not offered: the unknown command says the project is not trusted", async () => {
    const p = machine(() => []);
    const g = greeter(p.markers);
    for (const [file, text] of Object.entries(g.files)) {
      mkdirSync(dirname(join(p.dir, 'greeter', file)), { recursive: true });
      writeFileSync(join(p.dir, 'greeter', file), text);
    }
    writeFileSync(join(p.dir, 'greeter', 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', airlock: { extension: './src/index.mjs', kernel: '^1.0.0', commands: g.commands } }));
    writeFileSync(join(p.dir, '.airlockrc.json'), JSON.stringify({ extensions: ['./greeter'] }));
    const untrusted = await p.airlock(['--no-trust', 'greet', 'ada']);
    expect(untrusted.code).toBe(2);
    expect(untrusted.out).toBe('');
    expect(untrusted.err).toMatch(/extension greeter did not load.*is not trusted/s);
    expect((await p.airlock(['--no-trust', '--help'])).out).not.toContain('(from greeter)');
    expect(p.ran()).toEqual([]);
    expect(await p.airlock(['--trust', 'greet', 'ada'])).toMatchObject({ code: 0, out: 'ada please\n' });
  });

  it('an extension that still calls api.registerCommand loads, without that command, and is told how to declare it', async () => {
    const old = `export default { name: 'old', setup(api) { api.registerCommand({ name: 'legacy', summary: 'l', run: () => 0 }); } };\n`;
    const p = machine(() => [{ name: 'old', commands: undefined, files: { 'src/index.mjs': old } }]);
    const list = JSON.parse((await p.airlock(['--json', 'extensions'])).out) as { extensions: { name: string; status: string }[]; diagnostics: { code: string; severity: string; message: string }[] };
    expect(list.extensions.find((e) => e.name === 'old')?.status).toBe('loaded');
    const note = list.diagnostics.find((d) => d.code === 'AIRLOCK_EXTENSION_COMMAND_UNDECLARED')!;
    expect(note.severity).toBe('warning');
    expect(note.message).toContain('"commands": [{ "name": "legacy"');
    expect((await p.airlock(['legacy'])).code).toBe(2);
  });

  it('every command word the CLI defines is reserved in the host, so no extension can take it', async () => {
    for (const word of BUILTIN_COMMANDS) expect(RESERVED_COMMANDS).toContain(word);
    // And the CLI's help lists only those built-ins (plus extension commands).
    const p = machine(() => []);
    const help = await p.airlock(['--help']);
    // Each entry starts at two spaces and runs until the next; the audit-log extension's says so.
    const entries = help.out.split('Commands:')[1]!.split(/\n(?= {2}[a-z])/).map((e) => e.trim().replace(/\s+/g, ' ')).filter((e) => e !== '');
    const own = entries.filter((e) => !/\(from [@a-z/-]+\)$/.test(e)).map((e) => e.split(' ')[0]!);
    expect(entries.some((e) => e.startsWith('audit ') && e.endsWith('(from @airlock/audit-log)'))).toBe(true);
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

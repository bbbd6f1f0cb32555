import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProtectedPaths } from '@airlock/contract';
import type { RuleEntry } from '../src/index.js';
import { machine, policyFor, toolResources, type Machine } from './fixture.js';

const made: Machine[] = [];
afterEach(() => {
  for (const m of made.splice(0)) rmSync(m.base, { recursive: true, force: true });
});

/**
 * A machine with Airlock's own files where the host would say they are (the host builds the same
 * shape in packages/host/src/protected-paths.ts): the config folder with trust.json, the state
 * folder with an audit log, the spill folder, and the project's settings file.
 */
function airlockMachine() {
  const m = machine();
  made.push(m);
  const config = join(m.home, '.config', 'airlock');
  const state = join(m.home, '.local', 'state', 'airlock');
  const log = join(state, 'audit', 'proj-1234', 'audit.jsonl');
  const spill = join(m.base, 'spill');
  mkdirSync(config, { recursive: true });
  mkdirSync(join(state, 'audit', 'proj-1234'), { recursive: true });
  mkdirSync(spill);
  writeFileSync(join(config, 'trust.json'), '{"version":1,"entries":[]}');
  writeFileSync(log, '{"seq":1}\n');
  writeFileSync(join(m.root, '.airlockrc.json'), '{"permissions":{}}');
  const protectedPaths: ProtectedPaths = {
    locations: [
      { path: config, kind: 'folder', what: 'your Airlock config folder (settings, trust, extensions)' },
      { path: state, kind: 'folder', what: "Airlock's state folder (audit logs)" },
      { path: spill, kind: 'folder', what: "Airlock's spill folder (full tool outputs)" },
    ],
    settingsNames: ['.airlockrc*', 'airlock.config.*', '.airlock/**', '.config/config.*', 'airlock-lock.json', 'node_modules/@airlock/path-policy/**'],
    settingsFolders: [m.root, m.base],
    settingsTrees: [m.root],
  };
  return { ...m, config, state, log, spill, protectedPaths };
}

type AirlockMachine = ReturnType<typeof airlockMachine>;

const ALLOW_ALL: RuleEntry[] = ['fs.write(**)', 'fs.write(//**)', 'bash(*)', 'write', 'edit', 'exec(*)'].map((rule) => ({ effect: 'allow', rule }));

function policy(m: AirlockMachine, rules: RuleEntry[] = [], fold = false) {
  return policyFor(m, rules, { protectedPaths: m.protectedPaths, fold });
}

async function tool(m: AirlockMachine, name: string, path: string, rules: RuleEntry[] = [], fold = false) {
  return policy(m, rules, fold).decide({ tool: name, args: { path }, resources: toolResources(name, path, m) });
}

async function bash(m: AirlockMachine, command: string, rules: RuleEntry[] = []) {
  return policy(m, rules).decide({ tool: 'bash', args: { command }, resources: [{ kind: 'exec', command }] });
}

describe.each([
  ['no rules', [] as RuleEntry[]],
  ['allow rules for every write and command', ALLOW_ALL],
])("Airlock's own files, with %s", (_label, rules) => {
  it.each([
    ['write', '.airlock/settings.local.json'],
    ['write', 'airlock.config.mjs'],
    ['write', '.airlockrc'],
    ['edit', '.airlockrc.json'],
    ['write', 'src/../.airlockrc.yaml'],
    ['write', 'packages/x/.airlockrc.json'],
    ['write', '.config/config.json'],
    ['write', 'airlock-lock.json'],
    ['write', '../.airlockrc.json'],
    ['write', '~/.config/airlock/trust.json'],
    ['write', '~/.config/airlock/settings.json'],
    ['edit', '~/.local/state/airlock/audit/proj-1234/audit.jsonl'],
    ['write', 'node_modules/@airlock/path-policy/src/index.ts'],
    ['write', 'node_modules/.pnpm/@airlock+path-policy@9.9.9/node_modules/@airlock/path-policy/package.json'],
    ['write', '../node_modules/@airlock/path-policy/src/index.ts'],
  ])('%s %s is denied by the built-in protection', async (name, path) => {
    const m = airlockMachine();
    const d = await tool(m, name, path, rules);
    expect(d.effect).toBe('deny');
    expect(d.rule).toBe('default:airlock-protected');
    expect(d.reason).toMatch(/decides what Airlock allows/);
  });

  it.each([
    (m: AirlockMachine) => `echo '{}' > .airlockrc.json`,
    (m: AirlockMachine) => `echo x | tee -a .airlock/settings.local.json`,
    (m: AirlockMachine) => `cp /dev/null airlock.config.ts`,
    (m: AirlockMachine) => `mv README.md .airlockrc.yaml`,
    (m: AirlockMachine) => `sed -i s/a/b/ .airlockrc.json`,
    (m: AirlockMachine) => `echo '{}' > airlock-lock.json`,
    (m: AirlockMachine) => `mkdir -p .airlock`,
    (m: AirlockMachine) => `rm -f ${m.log}`,
    (m: AirlockMachine) => `truncate -s 0 ${m.log}`,
    (m: AirlockMachine) => `rm -rf ${m.home}/.local/state`,
    (m: AirlockMachine) => `rm -rf ${m.home}`,
    (m: AirlockMachine) => `mv ${m.home}/.config ${m.outside}/cfg`,
    (m: AirlockMachine) => `rm -rf .`,
    (m: AirlockMachine) => `touch ${m.spill}/x`,
    (m: AirlockMachine) => `ln -s ${m.home}/.config cfgl && mkdir -p cfgl/airlock && printf '{}' > cfgl/airlock/trust.json`,
    (m: AirlockMachine) => `ln -s ${m.home} h`,
    (m: AirlockMachine) => `ln -s / r`,
    (m: AirlockMachine) => `ln ${m.config}/trust.json t`,
    (m: AirlockMachine) => `cp -s ${m.config}/trust.json t`,
    (m: AirlockMachine) => `cp -l ${m.log} t`,
    (m: AirlockMachine) => `ln -s .. up`,
    (m: AirlockMachine) => `mkdir d && ln -s ${m.config} d && echo x > d/airlock/trust.json`,
    (m: AirlockMachine) => `bash -c 'echo x > .airlockrc.json'`,
    (m: AirlockMachine) => `cd ${m.config} && echo '{}' > trust.json`,
    (m: AirlockMachine) => `cd ~/.local/state && rm -rf airlock`,
    (m: AirlockMachine) => `env -C ${m.config} touch trust.json`,
    (m: AirlockMachine) => `exec 3> .airlockrc.json; echo x >&3`,
    (m: AirlockMachine) => `cat > .airlock/settings.local.json <<'EOF'\n{"permissions":{"allow":["bash(*)"]}}\nEOF`,
    (m: AirlockMachine) => `install -D evil ${m.config}/settings.json`,
    (m: AirlockMachine) => `ln -s /tmp/elsewhere .airlock`,
    (m: AirlockMachine) => `dd if=/dev/zero of=${m.log} count=0`,
  ])('bash %# is denied by the built-in protection', async (command) => {
    const m = airlockMachine();
    const d = await bash(m, command(m), rules);
    expect(d.effect).toBe('deny');
    expect(d.findings.some((f) => f.effect === 'deny' && f.rule === 'default:airlock-protected')).toBe(true);
  });
});

describe('no option or rule lifts the protection', () => {
  it('making the config folder a workspace root, allowing writes by default, and an exact allow rule', async () => {
    const m = airlockMachine();
    const write = '~/.config/airlock/trust.json';
    const p = policyFor(m, [{ effect: 'allow', rule: `fs.write(//${m.config.slice(1)}/trust.json)` }, { effect: 'allow', rule: `bash(echo x > ${m.config}/trust.json)` }], {
      protectedPaths: m.protectedPaths,
      roots: [m.root, m.home],
      defaultEffect: { writeOutsideRoots: 'allow', writeInsideRoots: 'allow' },
    });
    expect((await p.decide({ tool: 'write', args: { path: write }, resources: toolResources('write', write, m) })).rule).toBe('default:airlock-protected');
    const command = `echo x > ${m.config}/trust.json`;
    expect((await p.decide({ tool: 'bash', args: { command }, resources: [{ kind: 'exec', command }] })).rule).toBe('default:airlock-protected');
  });
});

describe('programs whose file use is unknown', () => {
  it.each([
    (m: AirlockMachine) => `python3 -c "open('.airlockrc.json','w').write('{}')"`,
    (m: AirlockMachine) => `git checkout evil -- .airlock`,
    (m: AirlockMachine) => `rsync -a evil/ ${m.config}/`,
    (m: AirlockMachine) => `tar -C ~/.config/airlock -xf x.tar`,
    (m: AirlockMachine) => `node -e "require('fs').writeFileSync(process.env.HOME + '/.config/airlock/trust.json', '{}')"`,
    (m: AirlockMachine) => `perl -pi -e s/ask/allow/ "$HOME/.config/airlock/settings.json"`,
  ])('%# asks when it names Airlock files, each time, whatever the allow rules', async (command) => {
    const m = airlockMachine();
    const d = await bash(m, command(m), ALLOW_ALL);
    expect(d.effect).toBe('ask');
    expect(d.rule).toBe('default:airlock-protected');
  });

  it.each(['git status', 'npm test', 'python3 -c "print(1)"', 'git commit -m "fix the parser"'])('%s is not affected', async (command) => {
    const m = airlockMachine();
    expect((await bash(m, command)).effect).toBe('allow');
  });
});

describe('what protection leaves alone', () => {
  it('reading Airlock files: allowed inside the project, the usual default outside', async () => {
    const m = airlockMachine();
    expect((await tool(m, 'read', '.airlockrc.json')).effect).toBe('allow');
    expect((await bash(m, 'cat .airlockrc.json && grep -r x .airlock || true')).effect).toBe('allow');
    const trust = await tool(m, 'read', '~/.config/airlock/trust.json');
    expect(trust.effect).toBe('ask');
    expect(trust.rule).toBe('default:read-outside-roots');
    expect((await tool(m, 'read', '~/.config/airlock/trust.json', [{ effect: 'allow', rule: 'fs.read(~/.config/airlock/**)' }])).effect).toBe('allow');
  });

  it.each([
    'mkdir -p build/out && echo hi > build/out/a.txt',
    'ln -s src/a.ts main.ts && cat main.ts',
    'cp -r src lib && sed -i s/x/y/ lib/a.ts',
    'echo node_modules >> .gitignore',
    "find . -name '*.o' -delete",
    'rm -rf build node_modules',
    'mv src/a.ts src/b.ts',
  ])('ordinary work is allowed: %s', async (command) => {
    const m = airlockMachine();
    const d = await bash(m, command);
    expect(d.effect, d.reason).toBe('allow');
  });

  it('find -delete that could reach settings asks, and an exact allow rule does not lift that', async () => {
    const m = airlockMachine();
    const d = await bash(m, 'find . -delete');
    expect(d.effect).toBe('ask');
    expect(d.rule).toBe('default:airlock-protected');
    const exact = await bash(m, "find . -name '.airlock*' -delete", [{ effect: 'allow', rule: "bash(find . -name .airlock\\* -delete)" }]);
    expect(exact.effect).toBe('ask');
    expect(exact.rule).toBe('default:airlock-protected');
  });
});

describe('paths are compared as they resolve', () => {
  it('case: on a folding filesystem .AIRLOCKRC.JSON and .Airlock/ are the settings', async () => {
    const m = airlockMachine();
    expect((await tool(m, 'write', '.AIRLOCKRC.JSON', ALLOW_ALL, true)).rule).toBe('default:airlock-protected');
    expect((await tool(m, 'write', '.Airlock/settings.local.json', ALLOW_ALL, true)).rule).toBe('default:airlock-protected');
  });

  it('a symlink or hard link made earlier leads to the protected file', async () => {
    const m = airlockMachine();
    symlinkSync(join(m.home, '.config'), join(m.root, 'cfg'));
    linkSync(m.log, join(m.root, 'log-copy'));
    expect((await tool(m, 'write', 'cfg/airlock/trust.json', ALLOW_ALL)).rule).toBe('default:airlock-protected');
    // A hard link cannot be told from the file afterwards; making one is what is denied (above).
    expect((await bash(m, `ln -s ${m.root}/cfg c2 && echo x > c2/airlock/settings.json`, ALLOW_ALL)).rule).toBe('default:airlock-protected');
  });
});

describe('links made earlier in the same command line', () => {
  it('a later command using the new link is judged at its target (a secret here)', async () => {
    const m = airlockMachine();
    // k/config is no secret name by itself: only its target, ~/.ssh/config, is.
    const d = await bash(m, `ln -s ${m.home}/.ssh k && cat k/config`, ALLOW_ALL);
    expect(d.effect).toBe('deny');
    expect(d.rule).toBe('default:secret-read');
    expect(d.findings.find((f) => f.rule === 'default:secret-read')?.reason).toContain(join(m.home, '.ssh', 'config'));
  });

  it('chains and moves: ln a, ln b → a, mv b c, then writing c/… is outside the workspace', async () => {
    const m = airlockMachine();
    const d = await bash(m, `ln -s ${m.outside} a && ln -s a b && mv b c && echo x > c/new.txt`);
    expect(d.effect).toBe('ask');
    expect(d.findings.some((f) => f.rule === 'default:write-outside-roots' && f.reason.includes(join(m.outside, 'new.txt')))).toBe(true);
  });

  it.each([
    'ln -s "$HOME/.config" cfgl && mkdir -p cfgl/airlock && printf x > cfgl/airlock/trust.json',
    'ln -s "$T" && echo x > airlock/trust.json',
    'ln -s "$T" d/ && echo x > d/x/trust.json',
    'HOME=/elsewhere; echo x > ~/.airlockrc.json',
    'export HOME=/elsewhere && echo x > ~/.airlockrc.json',
    "env HOME=/elsewhere bash -c 'echo x > ~/.airlockrc.json'",
  ])('a link or HOME only known at run time asks, even with every write and command allowed: %s', async (command) => {
    const m = airlockMachine();
    const d = await bash(m, command, ALLOW_ALL);
    expect(d.effect).toBe('ask');
    expect(d.rule).toBe('default:runtime-path');
  });

  it('a relative symlink target is read from the link’s folder', async () => {
    const m = airlockMachine();
    const d = await bash(m, `mkdir -p deep/er && ln -s ../../.. deep/er/up && echo x > deep/er/up/escaped.txt`);
    expect(d.effect).not.toBe('allow');
    expect(d.findings.some((f) => f.reason.includes(join(m.base, 'escaped.txt')))).toBe(true);
  });
});

describe('spill files: readable without asking, one session folder down, by every spelling', () => {
  function spillMachine() {
    const m = airlockMachine();
    mkdirSync(join(m.spill, 'session-1'));
    writeFileSync(join(m.spill, 'session-1', '.airlock-spill-session'), 'airlock spill session session-1\n');
    writeFileSync(join(m.spill, 'session-1', 'out.log'), 'full output\n');
    writeFileSync(join(m.spill, 'loose.txt'), 'not in a session\n');
    // A folder beside the sessions that the kernel did not make (spillDir pointed at a busy folder).
    mkdirSync(join(m.spill, 'other-work'));
    writeFileSync(join(m.spill, 'other-work', 'notes.txt'), 'private\n');
    mkdirSync(join(m.spill, 'session-1', 'deeper'));
    writeFileSync(join(m.spill, 'session-1', 'deeper', 'x.txt'), '');
    // The root as the host names it may be a link to the real folder (/tmp -> /private/tmp).
    symlinkSync(m.spill, join(m.base, 'spill-link'));
    return { ...m, protectedPaths: { ...m.protectedPaths, spillRoot: join(m.base, 'spill-link') } };
  }
  const read = (m: ReturnType<typeof spillMachine>, path: string, rules: RuleEntry[] = []) =>
    policyFor(m, rules, { protectedPaths: m.protectedPaths }).decide({ tool: 'read', args: { path }, resources: toolResources('read', path, m) });

  it('a file in a session folder is allowed by default:read-spill, as named and by its real path', async () => {
    const m = spillMachine();
    for (const path of [join(m.base, 'spill-link', 'session-1', 'out.log'), join(m.spill, 'session-1', 'out.log')]) {
      const d = await read(m, path);
      expect(d.effect, d.reason).toBe('allow');
      expect(d.rule).toBe('default:read-spill');
    }
  });

  it('not a loose file in the root, a deeper folder, or a folder without the session marker; and a deny rule still wins', async () => {
    const m = spillMachine();
    for (const path of [join(m.spill, 'loose.txt'), join(m.spill, 'session-1', 'deeper', 'x.txt'), join(m.spill, 'other-work', 'notes.txt')]) {
      expect((await read(m, path)).effect).toBe('ask');
    }
    const denied = await read(m, join(m.spill, 'session-1', 'out.log'), [{ effect: 'deny', rule: `fs.read(/${m.spill}/**)` }]);
    expect(denied.effect).toBe('deny');
  });

  it('without a spillRoot from the host nothing changes: reading outside the roots asks', async () => {
    const m = airlockMachine();
    mkdirSync(join(m.spill, 'session-1'));
    writeFileSync(join(m.spill, 'session-1', 'out.log'), 'x');
    const path = join(m.spill, 'session-1', 'out.log');
    expect((await policyFor(m, [], { protectedPaths: m.protectedPaths }).decide({ tool: 'read', args: { path }, resources: toolResources('read', path, m) })).effect).toBe('ask');
  });
});

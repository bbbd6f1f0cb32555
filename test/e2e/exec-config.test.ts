import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

const made: ReturnType<typeof sandbox>[] = [];
afterEach(() => {
  for (const s of made.splice(0)) rmSync(s.base, { recursive: true, force: true });
});

/**
 * A project that is a git repository with one commit, and a way to play the user afterwards:
 * git run by hand in the project with the sandbox's home (no system config), as a shell prompt
 * or a person would. Each payload touches a file named pwned-*, so "did it run" is a file check.
 */
function repo() {
  const s = sandbox();
  made.push(s);
  const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' };
  const git = (args: string[], cwd = s.project) => {
    try {
      return execFileSync('git', args, { cwd, env, stdio: 'pipe' }).toString();
    } catch (error) {
      return String((error as { stderr?: Buffer }).stderr ?? error); // a failing git command is the user's problem, not the test's
    }
  };
  git(['init', '-q']);
  s.write('project/README.md', '# p\n');
  git(['add', '-A']);
  git(['commit', '-qm', 'init']);
  const pwned = () => readdirSync(s.base, { recursive: true }).map(String).filter((p) => p.split('/').pop()!.startsWith('pwned'));
  /** What a user does next: look at the repositories (a prompt runs git status on cd), then commit. */
  const playUser = () => {
    for (const dir of ['.', 'sub', 'nested']) if (existsSync(join(s.project, dir))) git(['status', '--short'], join(s.project, dir));
    s.write('project/more.txt', `${Date.now()}\n`);
    git(['add', 'more.txt']);
    git(['commit', '-qm', 'more']);
  };
  return { s, git, pwned, playUser };
}

const payload = (name: string) => `#!/bin/sh\ntouch "$HOME/../${name}"\n`;
const fsmonitor = (name: string) => `[core]\n\tfsmonitor = "touch $HOME/../${name}; false"\n`;

describe('files inside the workspace that run code later, through the airlock binary', () => {
  it('each planting attack is refused (nobody to ask), and the user running git afterwards runs nothing', async () => {
    const { s, git, pwned, playUser } = repo();
    // Settings that allow everything broadly: none of them was written with git's folder in mind.
    s.write('home/.config/airlock/settings.json', { permissions: { allow: ['bash(*)', 'fs.write(**)', 'write', 'edit'] } });
    s.write('project/.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n');
    chmodSync(join(s.project, '.git/hooks/pre-commit'), 0o755);
    const configBefore = readFileSync(join(s.project, '.git/config'), 'utf8');
    const bash = (command: string) => s.airlock(['call', 'bash', JSON.stringify({ command })]);

    const attacks = [
      () => s.airlock(['call', 'edit', JSON.stringify({ path: '.git/config', edits: [{ oldText: '[core]', newText: `[core]\n\tfsmonitor = "touch ${s.base}/pwned-edit; false"` }] })]),
      () => s.airlock(['call', 'write', JSON.stringify({ path: '.git/hooks/pre-commit', content: payload('pwned-write-hook') })]),
      () => bash(`git config core.hooksPath .githooks && mkdir -p .githooks && printf '${payload('pwned-hookspath')}' > .githooks/pre-commit && chmod +x .githooks/pre-commit`),
      () => bash(`ln -s .git g && printf '${fsmonitor('pwned-link')}' >> g/config`),
      () => bash(`git init -q --bare evilgit && mkdir -p sub && printf '${fsmonitor('pwned-pointer')}' >> evilgit/config && printf 'gitdir: ../evilgit' > sub/.git`),
      () => bash(`git init -q nested && git -C nested config core.fsmonitor "touch ${s.base}/pwned-nested; false"`),
      () => s.airlock(['call', 'write', JSON.stringify({ path: '.vscode/tasks.json', content: '{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch pwned-vscode","runOptions":{"runOn":"folderOpen"}}]}' })]),
      () => s.airlock(['call', 'write', JSON.stringify({ path: '.idea/workspace.xml', content: '<project/>' })]),
    ];
    for (const attack of attacks) {
      const r = await attack();
      expect(r.code, r.stdout).not.toBe(0);
      expect(r.stdout).toContain('default:executable-config');
    }
    // Nothing was planted: git's config and hook as they were, no new repository, no editor folder.
    expect(readFileSync(join(s.project, '.git/config'), 'utf8')).toBe(configBefore);
    expect(readFileSync(join(s.project, '.git/hooks/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    for (const name of ['.githooks', 'g', 'sub', 'evilgit', 'nested', '.vscode', '.idea']) expect(existsSync(join(s.project, name)), name).toBe(false);

    playUser();
    expect(pwned()).toEqual([]);
    expect(git(['log', '--oneline'])).toContain('more');
  });

  it('the reason names the danger and what to do', async () => {
    const { s } = repo();
    const r = await s.airlock(['call', 'write', JSON.stringify({ path: '.git/hooks/pre-commit', content: payload('pwned-x') })]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain('hooks on commit');
    expect(r.stdout).toContain(`fs.write(/${join(s.project, '.git/hooks/pre-commit')})`);
  });

  it('husky: with core.hooksPath at .husky/_ a hook in .husky is refused; the control without it is an ordinary write', async () => {
    const { s, git } = repo();
    const write = () => s.airlock(['call', 'write', JSON.stringify({ path: '.husky/pre-commit', content: payload('pwned-husky') })]);
    git(['config', 'core.hooksPath', '.husky/_']);
    const refused = await write();
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain('core.hooksPath');
    expect(existsSync(join(s.project, '.husky/pre-commit'))).toBe(false);
    git(['config', '--unset', 'core.hooksPath']);
    expect((await write()).code).toBe(0);
  });

  it('a person can lift it for exactly one path, and then the hook really runs on commit (the attack is real)', async () => {
    const { s, pwned, playUser } = repo();
    const hook = join(s.project, '.git/hooks/pre-commit');
    s.write('project/.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n');
    chmodSync(hook, 0o755);
    s.write('home/.config/airlock/settings.json', { permissions: { allow: [`fs.write(/${hook})`] } });
    const r = await s.airlock(['call', 'write', JSON.stringify({ path: '.git/hooks/pre-commit', content: payload('pwned-allowed') })]);
    expect(r.code, r.stdout).toBe(0);
    expect(statSync(hook).mode & 0o111).not.toBe(0);
    // The same rule does not reach the file next to it.
    const other = await s.airlock(['call', 'write', JSON.stringify({ path: '.git/hooks/pre-push', content: payload('pwned-other') })]);
    expect(other.code).not.toBe(0);
    playUser();
    expect(pwned()).toEqual(['pwned-allowed']);
  });

  it('ordinary work stays allowed: package.json, Makefile, sources, git add and commit', async () => {
    const { s, git } = repo();
    for (const [path, content] of [
      ['package.json', '{"name":"p","scripts":{"test":"node -e 1"}}\n'],
      ['Makefile', 'all:\n\techo hi\n'],
      ['src/index.ts', 'export const x = 1;\n'],
    ]) {
      const r = await s.airlock(['call', 'write', JSON.stringify({ path, content })]);
      expect(r.code, r.stdout).toBe(0);
      expect(readFileSync(join(s.project, path!), 'utf8')).toBe(content);
    }
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command: 'git add -A && git -c user.name=u -c user.email=u@example.com commit -qm work && git status --short' })], {
      env: { GIT_CONFIG_NOSYSTEM: '1' },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(git(['log', '--oneline'])).toContain('work');
  });
});

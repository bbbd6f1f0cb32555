/**
 * Files other programs run as code later, by name: writing one plants code that runs when a
 * person uses their own tools (`git status`, opening the folder in an editor, a new shell),
 * outside any sandbox. In rule path syntax (a pattern starting with `**\/` matches at any depth,
 * `~/` is the home folder; `a/**` also matches `a`). Each says what runs it, for the reason a
 * person reads.
 *
 * The files git's configuration names (`core.hooksPath`, `core.fsmonitor`) and git folders found
 * by their content are added per repository (see set.ts); this list is the part that needs no
 * look at the disk.
 */
export interface ExecConfigPattern {
  pattern: string;
  /** Completes "writing X: …": what runs it, and when. */
  danger: string;
}

const GIT_FOLDER = "it is inside a git repository's own folder, whose config and hooks git runs as commands (core.fsmonitor on every `git status`, which shell prompts run on `cd`; hooks on commit, checkout, push)";
const SHELL_STARTUP = 'it is a shell startup file: every new shell runs it';

export const EXEC_CONFIG_PATTERNS: readonly ExecConfigPattern[] = Object.freeze([
  // `.git` itself too: creating a `.git` folder or a `gitdir:` pointer file makes a repository git will run config from.
  { pattern: '**/.git/**', danger: GIT_FOLDER },
  { pattern: '**/.gitmodules', danger: 'it tells git which repositories to fetch and check out as submodules (URLs and paths), on clone and `git submodule update`' },
  { pattern: '**/.gitconfig', danger: 'it is git configuration, which can name commands git runs (core.fsmonitor, core.pager, aliases, hooks)' },
  { pattern: '~/.config/git/**', danger: "it is the user's git configuration, which can name commands git runs" },
  { pattern: '**/.vscode/**', danger: 'VS Code runs tasks from it when the folder is opened (runOn: folderOpen) and takes interpreter, terminal and tool paths from its settings' },
  { pattern: '**/*.code-workspace', danger: 'VS Code takes tasks and settings from a workspace file when it is opened' },
  { pattern: '**/.idea/**', danger: 'JetBrains IDEs run its run configurations, tool and startup settings when the project is opened' },
  { pattern: '**/.devcontainer/**', danger: 'dev container tools run its lifecycle commands (postCreateCommand, initializeCommand on the host) when the folder is opened' },
  { pattern: '**/.devcontainer.json', danger: 'dev container tools run its lifecycle commands (initializeCommand on the host) when the folder is opened' },
  { pattern: '**/.envrc', danger: 'direnv runs it on `cd` into the folder' },
  { pattern: '**/.exrc', danger: 'vim and neovim run it on start in this folder (exrc)' },
  { pattern: '**/.nvimrc', danger: 'neovim runs it on start in this folder (exrc)' },
  { pattern: '**/.nvim.lua', danger: 'neovim runs it on start in this folder (exrc)' },
  { pattern: '~/.config/autostart/**', danger: 'the desktop session runs its entries at login' },
  { pattern: '~/.config/systemd/user/**', danger: "systemd runs the user's units in it (at login, on timers)" },
  ...[
    '.bashrc',
    '.bash_profile',
    '.bash_login',
    '.bash_logout',
    '.profile',
    '.zshrc',
    '.zshenv',
    '.zprofile',
    '.zlogin',
    '.zlogout',
    '.kshrc',
    '.mkshrc',
    '.cshrc',
    '.tcshrc',
    '.login',
    '.logout',
    '.config/fish/**',
  ].map((name) => ({ pattern: `~/${name}`, danger: SHELL_STARTUP })),
]);

/** The danger of a folder that is a git folder by what it holds, whatever its name. */
export const GIT_DIR_DANGER = GIT_FOLDER;

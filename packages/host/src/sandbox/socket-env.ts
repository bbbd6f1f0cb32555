import { lstatSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/**
 * Variables that tell a program where a channel out of the sandbox is: an agent, a display, a
 * terminal multiplexer, a message bus, a container engine, an editor. The seccomp filter already
 * refuses every Unix socket; these go too, so nothing inside even tries (and where the filter
 * cannot apply, a program does not find the way by its variable).
 */
const SOCKET_VARIABLES: ReadonlySet<string> = new Set([
  'SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'SSH_ASKPASS', 'GPG_AGENT_INFO', 'GNUPGHOME_SOCKET',
  'DBUS_SESSION_BUS_ADDRESS', 'DBUS_SYSTEM_BUS_ADDRESS', 'DBUS_STARTER_ADDRESS',
  'DISPLAY', 'WAYLAND_DISPLAY', 'WAYLAND_SOCKET', 'XAUTHORITY', 'PULSE_SERVER', 'PIPEWIRE_REMOTE',
  'TMUX', 'TMUX_PANE', 'STY', 'ZELLIJ', 'ZELLIJ_SESSION_NAME', 'KITTY_LISTEN_ON', 'KITTY_WINDOW_ID', 'WEZTERM_UNIX_SOCKET', 'ALACRITTY_SOCKET',
  'SWAYSOCK', 'I3SOCK', 'HYPRLAND_INSTANCE_SIGNATURE', 'NIRI_SOCKET',
  'DOCKER_HOST', 'CONTAINER_HOST', 'PODMAN_HOST', 'CONTAINERD_ADDRESS', 'BUILDKIT_HOST',
  'NVIM', 'NVIM_LISTEN_ADDRESS', 'EMACS_SOCKET_NAME', 'VSCODE_IPC_HOOK', 'VSCODE_IPC_HOOK_CLI', 'VSCODE_GIT_IPC_HANDLE', 'VSCODE_GIT_ASKPASS_NODE', 'VSCODE_GIT_ASKPASS_MAIN',
  'GIT_ASKPASS', 'JB_IDE_PORT', 'GNOME_KEYRING_CONTROL', 'KRB5CCNAME', 'SYSTEMD_EXEC_PID', 'NOTIFY_SOCKET', 'LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES',
  'XDG_RUNTIME_DIR',
]);

/** Prefixes of families of such variables (`VSCODE_IPC_*`, `KITTY_*`…). */
const SOCKET_PREFIXES: readonly string[] = ['VSCODE_IPC_', 'VSCODE_GIT_IPC_', 'KITTY_', 'WEZTERM_', 'TMUX_', 'ZELLIJ_'];

/**
 * The environment without the variables that name a way out of the sandbox: the known names
 * above, and — the class, for programs not on the list — any variable whose value is a `unix:`
 * address or names a socket file (alone or in a `:`/`,`/`;` list, or after `path=`). Only parts
 * that are absolute paths are stat'ed (a few dozen lstat calls per command, next to bubblewrap's
 * milliseconds); nothing is remembered, so a socket made since the last command is seen.
 *
 * @example
 * withoutSocketVariables({ PATH: '/usr/bin', SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1' }) // { PATH: '/usr/bin' }
 */
export function withoutSocketVariables(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (SOCKET_VARIABLES.has(name) || SOCKET_PREFIXES.some((p) => name.startsWith(p)) || namesSocket(value)) continue;
    out[name] = value;
  }
  return out;
}

function namesSocket(value: string): boolean {
  if (!value.includes('/') && !/unix:/i.test(value)) return false;
  return /(^|[\s,;'"=])unix:/i.test(value) || value.split(/[:,;\s]/).some((part) => isSocket(part.replace(/^[a-z]+=/i, '')));
}

function isSocket(path: string): boolean {
  if (!isAbsolute(path) || path.length > 4096) return false;
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

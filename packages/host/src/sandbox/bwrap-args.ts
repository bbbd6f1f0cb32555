import type { MountPlan } from './mounts.js';

/**
 * bubblewrap's arguments for a plan: the whole filesystem read-only, the plan's folders writable,
 * Airlock's files read-only again, secrets replaced by something nobody may open; its own PID,
 * IPC, UTS and network namespaces (no view of Airlock's process, no network), a session of its
 * own (no controlling terminal to push keystrokes into), a fresh /proc and /dev, and no
 * capabilities (as root, bubblewrap would otherwise keep them, and a process with CAP_SYS_ADMIN
 * could unmount the hiding mounts). Mount order matters: later ones cover earlier ones.
 *
 * `nests` is for a sandbox that starts a second bubblewrap for its command (beside the proxy
 * bridge, see launch.ts): as root, the inner one needs CAP_SYS_ADMIN and CAP_SETPCAP to build its
 * namespaces and drop every capability, so the outer one keeps those two (only Airlock's bridge
 * runs with them; the command never does).
 *
 * @example
 * bwrapArgs(plan, { cwd: '/w', denyFile: '/tmp/s/deny' }) // ['--ro-bind', '/', '/', …, '--chdir', '/w']
 */
export function bwrapArgs(plan: MountPlan, options: { cwd: string; denyFile: string; nests?: 'as-root' | 'as-user' }): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const p of plan.writable) args.push('--bind', p, p);
  // -try: a path removed between the plan and the start (a lock file let go, a file a build
  // replaced) is nothing to protect, and must not fail the command. One that reappears during
  // the command is what release() checks, as for a path that did not exist at the plan.
  for (const p of plan.readOnly) args.push('--ro-bind-try', p, p);
  for (const p of plan.hiddenDirs) args.push('--perms', '0000', '--tmpfs', p);
  for (const p of plan.hiddenFiles) args.push('--ro-bind', options.denyFile, p);
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--unshare-cgroup-try', '--new-session');
  args.push('--die-with-parent', '--cap-drop', 'ALL');
  if (options.nests === 'as-root') args.push('--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETPCAP');
  args.push('--chdir', options.cwd);
  return args;
}

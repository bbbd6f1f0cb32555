import type { MountPlan } from './mounts.js';

/**
 * bubblewrap's arguments for a plan: the whole filesystem read-only, the plan's folders writable,
 * Airlock's files read-only again, secrets replaced by something nobody may open; its own PID,
 * IPC, UTS and network namespaces (no view of Airlock's process, no network), a fresh /proc and
 * /dev, and no capabilities (as root, bubblewrap would otherwise keep them, and a process with
 * CAP_SYS_ADMIN could unmount the hiding mounts). Mount order matters: later ones cover earlier ones.
 *
 * @example
 * bwrapArgs(plan, { cwd: '/w', denyFile: '/tmp/s/deny' }) // ['--ro-bind', '/', '/', …, '--chdir', '/w']
 */
export function bwrapArgs(plan: MountPlan, options: { cwd: string; denyFile: string }): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const p of plan.writable) args.push('--bind', p, p);
  for (const p of plan.readOnly) args.push('--ro-bind', p, p);
  for (const p of plan.hiddenDirs) args.push('--perms', '0000', '--tmpfs', p);
  for (const p of plan.hiddenFiles) args.push('--ro-bind', options.denyFile, p);
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--unshare-cgroup-try');
  args.push('--die-with-parent', '--cap-drop', 'ALL', '--chdir', options.cwd);
  return args;
}

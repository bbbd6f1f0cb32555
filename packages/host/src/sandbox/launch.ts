import { BASH_NO_STARTUP_FILES } from '@airlock/toolkit/util';

/** Where the proxy listens inside the sandbox's own network namespace. */
export const PROXY_PORT = 3128;

/** Everything that decides how one sandboxed command is started. */
export interface Launch {
  /** bubblewrap's path. */
  bwrap: string;
  /** bubblewrap's own arguments: mounts and namespaces (`bwrapArgs`), without `--seccomp`. */
  sandbox: readonly string[];
  /** The command to run inside. */
  argv: readonly string[];
  cwd: string;
  /** The seccomp program's file, when the filter applies here. */
  filter?: string;
  /** Descriptors above 2 the child would inherit; closed before bubblewrap starts. */
  close?: readonly number[];
  /** The bridge to the network proxy, when the command may reach some host. */
  proxy?: { socat: string; socket: string };
}

/**
 * The program and arguments that start a command in the sandbox.
 *
 * The seccomp program reaches bubblewrap on descriptor 3, which any spawner would have to pass;
 * instead a shell opens it (and closes inherited descriptors) and `exec`s bubblewrap, so the
 * command line stays a plain `{file, args}` for every tool, hook and server, and costs one shell
 * start (below the noise next to bubblewrap's).
 *
 * With the network proxy, socat must run inside the sandbox's network namespace and needs Unix
 * sockets, so it cannot run under the filter; and if it ran beside the filtered command, the
 * command could ptrace it and borrow its sockets. So the outer sandbox starts socat, then a second
 * bubblewrap inside it starts the command under the filter, in a PID namespace (and, for a user
 * other than root, a user namespace) of its own, where socat is neither visible nor traceable.
 *
 * @example
 * launchLine({ bwrap: '/usr/bin/bwrap', sandbox: ['--ro-bind', '/', '/'], argv: ['true'], cwd: '/w', filter: '/tmp/s/unix.bpf' })
 * // { file: '/bin/sh', args: ['-c', 'exec "$@" 3<"$0"', '/tmp/s/unix.bpf', '/usr/bin/bwrap', '--ro-bind', '/', '/', '--seccomp', '3', '--', 'true'] }
 */
export function launchLine(launch: Launch): { file: string; args: string[] } {
  const { bwrap, sandbox, argv, cwd, filter, proxy } = launch;
  const close = launch.close ?? [];
  let args: string[];
  if (proxy === undefined) {
    args = [...sandbox, ...(filter === undefined ? [] : ['--seccomp', '3']), '--', ...argv];
  } else if (filter === undefined) {
    args = [...sandbox, '--', ...bridge(proxy), ...argv];
  } else {
    args = [...sandbox, '--', ...bridge(proxy), bwrap, ...innerArgs(cwd), '--seccomp', '3', '--', ...argv];
  }
  if (filter === undefined && close.length === 0) return { file: bwrap, args };
  // dash (most /bin/sh) takes descriptor numbers up to 9 in a redirection; bash any.
  const shell = close.some((fd) => fd > 9) ? ['/bin/bash', ...BASH_NO_STARTUP_FILES] : ['/bin/sh'];
  const redirections = [...close.filter((fd) => fd !== 3 || filter === undefined).map((fd) => `${fd}>&-`), ...(filter === undefined ? [] : ['3<"$0"'])];
  return { file: shell[0]!, args: [...shell.slice(1), '-c', `exec "$@" ${redirections.join(' ')}`, filter ?? 'sandbox', bwrap, ...args] };
}

/**
 * The inner sandbox for a command beside the proxy bridge: the outer one's whole view (its mounts
 * and network namespace), a PID namespace of its own and no capabilities. As root, bubblewrap
 * nests with the two capabilities the outer one keeps for it (see `bwrapArgs`); as another user it
 * makes a user namespace on its own.
 */
function innerArgs(cwd: string): string[] {
  return ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--new-session', '--die-with-parent', '--cap-drop', 'ALL', '--chdir', cwd];
}

/**
 * The sandbox's first process when the command may use the network: socat listens on
 * 127.0.0.1:3128 inside (the sandbox's own loopback) and carries each connection to the proxy's
 * Unix socket outside; the command starts once it listens. socat gets no descriptor 3 (the filter).
 */
function bridge(proxy: { socat: string; socket: string }): string[] {
  const script =
    `"$0" TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$1" </dev/null >/dev/null 2>&1 3<&- & ` +
    `for _ in $(seq 200); do (exec 4<>/dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null && break; sleep 0.01; done; shift; exec "$@"`;
  return ['/bin/bash', ...BASH_NO_STARTUP_FILES, '-c', script, proxy.socat, proxy.socket];
}

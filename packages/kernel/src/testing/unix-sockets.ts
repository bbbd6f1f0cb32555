import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

/** Listening Unix sockets a test made, and how many connections reached them. */
export interface SocketListeners {
  readonly paths: readonly string[];
  /** Connections accepted so far, over all of them. */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * A listening Unix socket in each folder (stream sockets, as an SSH agent, tmux or docker.sock
 * have): each greets a client with a line and counts it. For tests that a process inside the OS
 * sandbox can reach none of them.
 *
 * @example
 * const listeners = await socketListeners([outside, join(home, '.ssh')]);
 * // … run the probe inside the sandbox …
 * expect(listeners.accepted()).toBe(0);
 * await listeners.close();
 */
export async function socketListeners(dirs: readonly string[]): Promise<SocketListeners> {
  let accepted = 0;
  const servers: Server[] = [];
  const paths: string[] = [];
  for (const [i, dir] of dirs.entries()) {
    const path = join(dir, `listener-${i}.sock`);
    const server = createServer((socket) => {
      accepted += 1;
      socket.on('error', () => {}); // a probe that hangs up at once resets the connection
      socket.end('hello from outside the sandbox\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    servers.push(server);
    paths.push(path);
  }
  return {
    paths,
    accepted: () => accepted,
    close: () => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => undefined),
  };
}

/**
 * Every socket file this machine shows, bounded: the paths /proc/net/unix lists as bound (every
 * listening path socket in this network namespace, wherever it lives) and those a walk of the
 * usual places finds (/run, /var/run, /tmp, /dev/shm, the home), at most `limit` entries and four
 * levels deep.
 *
 * @example
 * visibleSocketFiles({ home: '/home/u' }) // ['/run/dbus/system_bus_socket', '/tmp/tmux-1000/default', …]
 */
export function visibleSocketFiles(options: { home?: string; limit?: number } = {}): string[] {
  const found = new Set<string>();
  try {
    for (const line of readFileSync('/proc/net/unix', 'latin1').split('\n').slice(1)) {
      const path = line.trim().split(/\s+/)[7];
      if (path !== undefined && path.startsWith('/')) found.add(path);
    }
  } catch {
    // no /proc/net/unix: the walk alone
  }
  let budget = options.limit ?? 5000;
  const walk = (dir: string, depth: number) => {
    if (depth > 4 || budget <= 0) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget <= 0) return;
      const path = join(dir, entry.name);
      if (entry.isSocket()) found.add(path);
      else if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') walk(path, depth + 1);
    }
  };
  for (const root of ['/run', '/var/run', '/tmp', '/dev/shm', ...(options.home === undefined ? [] : [options.home])]) walk(root, 0);
  return [...found].sort();
}

/**
 * A Node program that tries to connect to every path listed (one per line) in the file named by
 * its first argument, and prints `{ "<path>": "connected" | "<error code>" }` as JSON. The paths go
 * in a file, not a variable: the sandbox removes variables whose value names a socket.
 */
export const REACH_PROBE = `
const net = require('node:net');
const paths = require('node:fs').readFileSync(process.argv[2], 'utf8').split('\\n').filter(Boolean);
const out = {};
let left = paths.length;
if (left === 0) console.log('{}');
for (const path of paths) {
  let socket;
  const done = (result) => {
    if (path in out) return;
    out[path] = result;
    socket?.destroy();
    if (--left === 0) console.log(JSON.stringify(out));
  };
  try {
    socket = net.connect(path);
    socket.on('connect', () => done('connected'));
    socket.on('error', (e) => done(e.code ?? String(e.message)));
    socket.setTimeout(3000, () => done('timeout'));
  } catch (e) {
    done(e.code ?? String(e.message));
  }
}
`;

/**
 * Write the probe and its list of paths into `dir`; returns the command line that runs it with
 * this Node and prints the JSON answer.
 *
 * @example
 * const { argv } = writeReachProbe(project, listeners.paths); // ['/usr/bin/node', '<dir>/reach-probe.cjs', '<dir>/reach-paths.txt']
 */
export function writeReachProbe(dir: string, paths: readonly string[]): { argv: string[]; script: string; list: string } {
  const script = join(dir, 'reach-probe.cjs');
  const list = join(dir, 'reach-paths.txt');
  writeFileSync(script, REACH_PROBE);
  writeFileSync(list, `${paths.join('\n')}\n`);
  return { argv: [process.execPath, script, list], script, list };
}

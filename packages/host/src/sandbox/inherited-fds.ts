import { readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/self/fdinfo prints `flags` (octal), on x86_64 and arm64 alike. */
const O_CLOEXEC = 0o2000000;

/**
 * The descriptors above 2 that a child of this process would inherit: every descriptor Node opens
 * itself is close-on-exec, but one it inherited without that flag (a test runner's pipe, an IPC
 * channel, a socket an embedding program left open) passes through bubblewrap into the command,
 * where a Unix socket among them would be a way out the seccomp filter cannot see (it refuses
 * making sockets, not using one already open). The sandbox closes these before the command starts.
 * One read of /proc per host (about half a millisecond with Node's own descriptors): only native
 * code can open a descriptor without the flag later, and that is not looked for again.
 *
 * @example
 * inheritedDescriptors() // [] in a plain terminal; [251] when a parent left fd 251 open
 */
export function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return []; // no /proc (not Linux): nothing to read, and bubblewrap is Linux only
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${name}`, 'latin1');
    } catch {
      continue; // closed meanwhile (the listing's own descriptor, among others)
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

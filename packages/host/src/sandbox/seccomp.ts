/**
 * The seccomp program that seals the channels out of the sandbox that its namespaces leave open.
 * A read-only mount does not stop `connect()` to a socket file, and `--unshare-net` separates
 * only what the network namespace holds (TCP, UDP, abstract sockets, netlink), so without it
 * every socket on the machine (the user's tmux server, ssh-agent, docker.sock, D-Bus) and every
 * socket family no namespace covers (vsock to the hypervisor) is reachable from inside. The
 * program makes these calls fail with EPERM:
 *
 * - `socket()` of any family but AF_INET, AF_INET6 and AF_NETLINK (all three live in the network
 *   namespace): no Unix socket, so no connect to any socket path, and no vsock, packet, XDP,
 *   Bluetooth… socket (an allow list: a family added to the kernel later is refused too);
 * - `socketpair()` but AF_UNIX stream and seqpacket pairs: libuv (Node), Python and others use
 *   them for pipes, and `connect()` on one fails with EISCONN; an unconnected datagram pair could
 *   `sendto()` any datagram socket path (journald, /dev/log);
 * - `io_uring_setup/enter/register`: io_uring can create sockets without calling socket();
 * - `add_key`, `request_key`, `keyctl`: the kernel keyrings are not namespaced, so a command
 *   could read keys the user's session keeps there (Kerberos tickets, fscrypt, ecryptfs);
 * - the x32 ABI (syscall numbers with bit 30 set), which the checks above would not see;
 *
 * and kill any process that makes a call through another ABI (i386's `int 0x80`, arm32 compat),
 * whose numbers (and `socketcall`) this program does not describe.
 *
 * Classic BPF, assembled here (no compiler, no native code): bubblewrap loads it with
 * `--seccomp FD`. One trap this avoids: the domain is compared on its low 32 bits only. The
 * kernel reads it as an `int`, so a filter comparing all 64 bits (as libseccomp's plain rule
 * does) lets `socket((1 << 32) | AF_UNIX, …)` through.
 *
 * @example
 * const program = unixSocketFilter('x64'); // a Buffer of 8-byte instructions, or undefined
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const target = ARCHES[arch];
  if (target === undefined) return undefined;
  return encode(assemble(target));
}

/** The architectures the filter is written for (Node's `process.arch` names). */
export const FILTER_ARCHES: readonly string[] = ['x64', 'arm64'];

interface ArchNumbers {
  /** AUDIT_ARCH_* (linux/audit.h): the `arch` field a call through the native ABI carries. */
  audit: number;
  socket: number;
  socketpair: number;
  ioUring: readonly number[];
  /** add_key, request_key, keyctl. */
  keyring: readonly number[];
  /** x86_64's x32 ABI bit (`__X32_SYSCALL_BIT`), if the architecture has one. */
  x32Bit?: number;
}

// Numbers from linux/audit.h, asm/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64).
const ARCHES: Readonly<Record<string, ArchNumbers>> = {
  x64: { audit: 0xc000003e, socket: 41, socketpair: 53, ioUring: [425, 426, 427], keyring: [248, 249, 250], x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, socket: 198, socketpair: 199, ioUring: [425, 426, 427], keyring: [217, 218, 219] },
};

// linux/bpf_common.h and linux/seccomp.h.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const AND_K = 0x54;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_KILL_PROCESS = 0x80000000;
// struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (low word first on little endian).
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;
const ARG1_LOW = 24;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
// SOCK_NONBLOCK and SOCK_CLOEXEC share the type argument; the type itself is the low 4 bits.
const SOCK_TYPE_MASK = 0xf;

type Label = 'next' | 'allow' | 'deny' | 'kill' | 'socket' | 'socketpair';

interface Instruction {
  code: number;
  k: number;
  jt?: Label;
  jf?: Label;
  label?: Label;
}

function assemble(a: ArchNumbers): Instruction[] {
  const program: Instruction[] = [];
  const ld = (offset: number, label?: Label) => program.push({ code: LD_W_ABS, k: offset, ...(label === undefined ? {} : { label }) });
  const jeq = (k: number, jt: Label, jf: Label) => program.push({ code: JEQ_K, k, jt, jf });
  const ret = (k: number, label?: Label) => program.push({ code: RET_K, k, ...(label === undefined ? {} : { label }) });

  ld(ARCH);
  jeq(a.audit, 'next', 'kill');
  ld(NR);
  if (a.x32Bit !== undefined) program.push({ code: JGE_K, k: a.x32Bit, jt: 'deny', jf: 'next' });
  jeq(a.socket, 'socket', 'next');
  jeq(a.socketpair, 'socketpair', 'next');
  for (const nr of [...a.ioUring, ...a.keyring]) jeq(nr, 'deny', 'next');
  ret(RET_ALLOW);
  ld(ARG0_LOW, 'socket');
  jeq(AF_INET, 'allow', 'next');
  jeq(AF_INET6, 'allow', 'next');
  jeq(AF_NETLINK, 'allow', 'deny');
  ld(ARG0_LOW, 'socketpair');
  jeq(AF_UNIX, 'next', 'deny');
  ld(ARG1_LOW);
  program.push({ code: AND_K, k: SOCK_TYPE_MASK });
  jeq(SOCK_STREAM, 'allow', 'next');
  jeq(SOCK_SEQPACKET, 'allow', 'deny');
  ret(RET_EPERM, 'deny');
  ret(RET_ALLOW, 'allow');
  ret(RET_KILL_PROCESS, 'kill');
  return program;
}

/** `struct sock_filter[]`: u16 code, u8 jt, u8 jf, u32 k, in the machine's byte order (both targets are little endian). */
function encode(program: readonly Instruction[]): Buffer {
  const at = new Map<Label, number>();
  program.forEach((ins, i) => ins.label !== undefined && at.set(ins.label, i));
  const offset = (from: number, label: Label | undefined): number => {
    if (label === undefined || label === 'next') return 0;
    const to = at.get(label);
    // Jumps only go forward, by at most 255 instructions.
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp program: bad jump from ${from} to ${label}`);
    return to - from - 1;
  };
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(offset(i, ins.jt), i * 8 + 2);
    out.writeUInt8(offset(i, ins.jf), i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}

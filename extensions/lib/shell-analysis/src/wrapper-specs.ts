import type { OptionSpec } from './options.js';

/**
 * Programs that run another program given as their remaining arguments. Stripping them lets a
 * rule about `cat` see `sudo -u x timeout 5 cat`. Each grammar is exact (OptionSpec.flags): an
 * option it does not know makes the analysis unsure, since it might take a value and move where
 * the command starts. Programs not listed here stay the command name.
 */
export interface WrapperSpec {
  options: OptionSpec;
  /** Words between the options and the command (timeout's duration, taskset's mask). */
  positionals?: number;
  /** Words before the options (setarch's architecture). */
  leading?: number;
  /** A numeric word before the command is the wrapper's own (chrt's priority). */
  optionalNumber?: boolean;
  /** NAME=value words before the command are the command's environment. */
  assignments?: boolean;
  /** Options after which the wrapper runs no command of its own (sudo -l, command -v). */
  noCommandWith?: readonly string[];
  /** The wrapper appends arguments that exist only at run time. */
  appendsArgs?: boolean;
  /** Options whose value is a file the wrapper writes (time -o, strace -o). */
  writes?: readonly string[];
  /** Options whose value is a file the wrapper reads (xargs -a). */
  reads?: readonly string[];
  /** Without one of these options the wrapper runs no command (schedtool -e). */
  needs?: readonly string[];
  /** The next word picks a grammar (perf stat, perf record); other words: the wrapper is the command. */
  subcommands?: Readonly<Record<string, WrapperSpec>>;
}

const HELP = ['help', 'version'];

const PERF_RUN: WrapperSpec = {
  options: {
    short: 'eCGpPtuxIoMrcFmbjNS',
    flags: 'aAdgnqRsvBiTWYD',
    long: ['event', 'cpu', 'cgroup', 'pid', 'tid', 'uid', 'field-separator', 'interval-print', 'output', 'metrics', 'repeat', 'count', 'freq', 'mmap-pages', 'branch-filter', 'call-graph', 'filter', 'delay', 'topdown', 'post', 'pre', 'append', 'exclude', 'duration', 'expr', 'switch-output', 'max-size', 'affinity', 'clockid'],
    longFlags: ['all-cpus', 'no-inherit', 'scale', 'verbose', 'quiet', 'per-socket', 'per-core', 'per-thread', 'per-node', 'per-die', 'no-aggr', 'detailed', 'null', 'sync', 'big-num', 'no-big-num', 'raw-samples', 'stat', 'data', 'timestamp', 'period', 'no-buildid', 'no-buildid-cache', 'no-samples', 'all-user', 'all-kernel', 'sample-cpu', 'weight', 'transaction', 'running-time', 'realtime', 'summary', 'help', 'version'],
  },
  writes: ['-o', '--output'],
};

export const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    options: { short: 'uCSa', flags: 'i0v', long: ['unset', 'chdir', 'split-string', 'argv0'], longFlags: ['ignore-environment', 'null', 'debug', 'default-signal', 'ignore-signal', 'block-signal', 'list-signal-handling', ...HELP] },
    assignments: true,
  },
  sudo: {
    options: {
      short: 'ugCDhprtTUc',
      flags: 'AbBEeHiKklnPSsVvN',
      long: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot'],
      longFlags: ['askpass', 'background', 'bell', 'preserve-env', 'edit', 'set-home', 'login', 'remove-timestamp', 'reset-timestamp', 'list', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'validate', 'no-update', ...HELP],
    },
    assignments: true,
    // `sudo -k CMD` still runs CMD (it only forgets the cached credentials first).
    noCommandWith: ['-l', '--list', '-v', '--validate', '-K', '--remove-timestamp', '-V', '--version'],
  },
  doas: { options: { short: 'uC', flags: 'Lns' }, noCommandWith: ['-C', '-L'] },
  pkexec: { options: { short: 'u', flags: '', long: ['user'], longFlags: ['disable-internal-agent', 'keep-cwd', ...HELP] } },
  timeout: { options: { short: 'sk', flags: 'vfp', long: ['signal', 'kill-after'], longFlags: ['preserve-status', 'foreground', 'verbose', ...HELP] }, positionals: 1 },
  nice: { options: { short: 'n', flags: '', long: ['adjustment'], longFlags: HELP, numeric: true } },
  nohup: { options: { flags: '', longFlags: HELP } },
  time: { options: { short: 'fo', flags: 'pvaq', long: ['format', 'output'], longFlags: ['portability', 'verbose', 'append', 'quiet', ...HELP] }, writes: ['-o', '--output'] },
  xargs: {
    // -e, -i and -l take only an attached value in GNU xargs.
    options: {
      short: 'adEILnPs',
      attached: 'eil',
      flags: '0prtxo',
      long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
      longFlags: ['eof', 'replace', 'max-lines', 'null', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'open-tty', 'show-limits', ...HELP],
    },
    appendsArgs: true,
    reads: ['-a', '--arg-file'],
  },
  command: { options: { flags: 'pvV' }, noCommandWith: ['-v', '-V'] },
  builtin: { options: { flags: '' } },
  exec: { options: { short: 'a', flags: 'cl' } },
  stdbuf: { options: { short: 'ioe', flags: '', long: ['input', 'output', 'error'], longFlags: HELP } },
  ionice: {
    options: { short: 'cnpPu', flags: 't', long: ['class', 'classdata', 'pid', 'pgid', 'uid'], longFlags: ['ignore', ...HELP] },
    noCommandWith: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'],
  },
  setsid: { options: { flags: 'cfw', longFlags: ['ctty', 'fork', 'wait', ...HELP] } },
  chronic: { options: { flags: 'ev' } },
  noglob: { options: { flags: '' } },
  nocorrect: { options: { flags: '' } },
  // flock FILE -c STRING is a command string (command-strings.ts); flock FILE CMD ARGS… and flock FD are handled here.
  flock: {
    options: { short: 'wE', flags: 'sxenouFhV', long: ['wait', 'timeout', 'conflict-exit-code'], longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose', ...HELP] },
    positionals: 1,
  },
  taskset: { options: { flags: 'acpV', longFlags: ['all-tasks', 'cpu-list', 'pid', ...HELP] }, positionals: 1, noCommandWith: ['-p', '--pid'] },
  prlimit: {
    options: {
      short: 'po',
      attached: 'cdefilmnqrstuvxy',
      flags: '',
      long: ['pid', 'output'],
      longFlags: ['as', 'core', 'cpu', 'data', 'fsize', 'locks', 'memlock', 'msgqueue', 'nice', 'nofile', 'nproc', 'rss', 'rtprio', 'rttime', 'sigpending', 'stack', 'noheadings', 'raw', 'verbose', ...HELP],
    },
    noCommandWith: ['-p', '--pid'],
  },
  setarch: {
    options: { flags: 'v3BFILRSTXZ', longFlags: ['verbose', '3gb', '32bit', 'fdpic-funcptrs', 'short-inode', 'addr-compat-layout', 'addr-no-randomize', 'whole-seconds', 'sticky-timeouts', 'read-implies-exec', 'mmap-page-zero', 'uname-2.6', 'list', ...HELP] },
    leading: 1,
    noCommandWith: ['--list'],
  },
  chrt: {
    options: { short: 'TPD', flags: 'abdfiorRpmv', long: ['sched-runtime', 'sched-period', 'sched-deadline'], longFlags: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'pid', 'max', 'verbose', ...HELP] },
    optionalNumber: true,
    noCommandWith: ['-p', '--pid', '-m', '--max'],
  },
  fakeroot: { options: { short: 'lis', flags: 'uhv', long: ['lib', 'faked', 'fd-base'], longFlags: ['unknown-is-real', ...HELP] }, writes: ['-s'], reads: ['-i'] },
  strace: {
    options: {
      short: 'IbeOSUaosXPpEu',
      flags: 'ACdDfFhikqrtTvVwxyzZcnY',
      long: ['trace', 'signal', 'status', 'quiet', 'decode-fds', 'decode-pids', 'abbrev', 'verbose', 'raw', 'read', 'write', 'fault', 'inject', 'kvm', 'output', 'string-limit', 'trace-path', 'attach', 'env', 'user', 'columns', 'summary-columns', 'summary-sort-by', 'const-print-style', 'silence', 'syscall-limit', 'absolute-timestamps', 'timestamps', 'relative-timestamps', 'secontext'],
      longFlags: ['follow-forks', 'output-separately', 'summary-only', 'summary', 'summary-wall-clock', 'syscall-times', 'instruction-pointer', 'stack-trace', 'no-abbrev', 'seccomp-bpf', 'daemonize', 'successful-only', 'failed-only', 'debug', 'kill-on-exit', 'tips', 'quiet', 'decode-fds', 'decode-pids', 'syscall-number', 'timestamps', 'relative-timestamps', ...HELP],
      anyLongWithValue: true,
    },
    writes: ['-o', '--output'],
  },
  ltrace: {
    options: {
      short: 'aADeFlnopsuwx',
      flags: 'bCcfghiLrStTV',
      long: ['library', 'output', 'where'],
      longFlags: ['demangle', 'no-signals', 'no-plt', ...HELP],
      anyLongWithValue: true,
    },
    writes: ['-o', '--output'],
  },
  valgrind: { options: { flags: 'vqhs', longFlags: ['help-debug', 'help-dyn-options', ...HELP], anyLongWithValue: true } },
  chroot: { options: { flags: '', long: ['groups', 'userspec'], longFlags: ['skip-chdir', ...HELP] }, positionals: 1 },
  unshare: {
    options: {
      short: 'RwSGl',
      attached: 'imnpuUCT',
      flags: 'frc',
      long: ['propagation', 'setgroups', 'root', 'wd', 'setuid', 'setgid', 'monotonic', 'boottime', 'map-user', 'map-group', 'map-users', 'map-groups', 'load-interp'],
      longFlags: ['ipc', 'mount', 'net', 'pid', 'uts', 'user', 'cgroup', 'time', 'fork', 'kill-child', 'mount-proc', 'map-root-user', 'map-current-user', 'map-auto', 'keep-caps', 'mount-binfmt', ...HELP],
    },
  },
  nsenter: {
    options: {
      short: 'tGSW',
      attached: 'muinpCUTrw',
      flags: 'aeFZcN',
      long: ['target', 'setgid', 'setuid', 'wdns', 'env'],
      longFlags: ['all', 'mount', 'uts', 'ipc', 'net', 'pid', 'cgroup', 'user', 'time', 'root', 'wd', 'preserve-credentials', 'no-fork', 'follow-context', 'join-cgroup', 'user-parent', 'keep-caps', ...HELP],
    },
  },
  firejail: { options: { flags: 'c', anyLong: true } },
  numactl: {
    options: {
      short: 'ipmNCP',
      flags: 'lsHabt',
      long: ['interleave', 'preferred', 'membind', 'cpunodebind', 'physcpubind', 'preferred-many', 'shmmode', 'shmid', 'offset', 'length', 'file', 'shm'],
      longFlags: ['localalloc', 'show', 'hardware', 'all', 'balancing', 'touch', 'strict', 'huge', 'dump', 'dump-nodes', ...HELP],
    },
    noCommandWith: ['-s', '--show', '-H', '--hardware'],
  },
  cpulimit: {
    options: { short: 'lpePc', flags: 'zivhbqkrf', long: ['limit', 'pid', 'exe', 'path', 'cpu'], longFlags: ['lazy', 'include-children', 'verbose', 'background', 'quiet', 'kill', 'restore', 'foreground', ...HELP] },
    noCommandWith: ['-p', '--pid', '-e', '--exe', '-P', '--path'],
  },
  'systemd-run': {
    options: {
      short: 'pEuMH',
      flags: 'tPSqrdGh',
      long: ['unit', 'property', 'description', 'slice', 'setenv', 'working-directory', 'uid', 'gid', 'nice', 'machine', 'host', 'on-active', 'on-boot', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'on-calendar', 'on-clock-change', 'on-timezone-change', 'timer-property', 'path-property', 'socket-property', 'service-type'],
      longFlags: ['user', 'system', 'scope', 'wait', 'pty', 'pipe', 'quiet', 'collect', 'remain-after-exit', 'same-dir', 'send-sighup', 'no-block', 'no-ask-password', 'shell', 'slice-inherit', 'expand-environment', 'ignore-failure', 'json', ...HELP],
    },
  },
  'xvfb-run': { options: { short: 'efnpsw', flags: 'adhl', long: ['error-file', 'auth-file', 'server-num', 'xauth-protocol', 'server-args', 'wait'], longFlags: ['auto-servernum', 'auto-display', 'listen-tcp', 'help'] } },
  caffeinate: { options: { short: 'tw', flags: 'dimsu' } },
  catchsegv: { options: { flags: '' } },
  sshpass: { options: { short: 'fdpP', attached: 'e', flags: 'hVv' } },
  'dbus-run-session': { options: { flags: '', long: ['config-file', 'dbus-daemon'], longFlags: HELP } },
  'with-contenv': { options: { flags: '' } },
  unbuffer: { options: { flags: 'p' } },
  faketime: { options: { short: 'p', flags: 'mf', long: ['date-prog'], longFlags: ['exclude-monotonic', 'disable-shm', ...HELP] }, positionals: 1 },
  proxychains: { options: { short: 'f', flags: 'q' } },
  proxychains4: { options: { short: 'f', flags: 'q' } },
  torsocks: {
    options: { short: 'upaP', flags: 'idqh', long: ['user', 'pass', 'address', 'port'], longFlags: ['isolate', 'debug', 'quiet', 'shell', ...HELP] },
    noCommandWith: ['--shell'],
  },
  tsocks: { options: { flags: '' } },
  schedtool: { options: { short: 'panM', flags: 'NFRBID0123456789rv', commandAfter: ['-e'] }, needs: ['-e'] },
  cgexec: { options: { short: 'g', flags: 'h', longFlags: ['sticky'] } },
  busybox: { options: { flags: '', longFlags: ['list', 'list-full', 'install', 'help'] }, noCommandWith: ['--list', '--list-full', '--install', '--help'] },
  eatmydata: { options: { flags: '', longFlags: HELP } },
  nocache: { options: { short: 'n', flags: '' } },
  gosu: { options: { flags: '', longFlags: HELP }, positionals: 1 },
  'su-exec': { options: { flags: '' }, positionals: 1 },
  setuidgid: { options: { flags: '' }, positionals: 1 },
  envuidgid: { options: { flags: '' }, positionals: 1 },
  envdir: { options: { flags: '' }, positionals: 1 },
  softlimit: { options: { short: 'mdsltaofcr', flags: '' } },
  chpst: { options: { short: 'uUbe/CnlLmdopfcrt', flags: 'Pv012' } },
  'ssh-agent': { options: { short: 'aEOPt', flags: 'csDdk' }, noCommandWith: ['-k'] },
  tini: { options: { short: 'pe', flags: 'hsvwgl' } },
  'dumb-init': { options: { short: 'r', flags: 'cvVh', long: ['rewrite'], longFlags: ['single-child', 'verbose', ...HELP] } },
  'systemd-inhibit': { options: { flags: '', long: ['what', 'who', 'why', 'mode'], longFlags: ['list', 'no-pager', 'no-legend', 'no-ask-password', ...HELP] }, noCommandWith: ['--list'] },
  trickle: { options: { short: 'wtlndu', flags: 'hvVs' } },
  // entr -s runs its utility as a shell string (command-strings.ts).
  entr: { options: { flags: 'acdnprsz' }, noCommandWith: ['-s'] },
  'sandbox-exec': { options: { short: 'fnpD', flags: '' } },
  perf: { options: { flags: '', longFlags: [] }, subcommands: { stat: PERF_RUN, record: PERF_RUN, trace: PERF_RUN } },
};

// setarch's other names: the architecture is the name itself.
for (const name of ['linux32', 'linux64', 'i386', 'x86_64']) WRAPPERS[name] = { ...WRAPPERS.setarch!, leading: 0 };

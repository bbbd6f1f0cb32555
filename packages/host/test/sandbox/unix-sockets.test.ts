import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { socketListeners, visibleSocketFiles, writeReachProbe } from '@airlock/kernel/testing';
import { bwrapWorks, hasProgram, machinesClosedAfterEach } from './support.js';

const setup = machinesClosedAfterEach();
const hasPython = hasProgram('python3', '-c', 'import ctypes');
const hasCurl = hasProgram('curl', '--version');
const hasSocat = hasProgram('socat', '-V');

/** Listeners of the test's own in folders outside the workspace, plus every socket this machine shows. */
async function targets(m: ReturnType<typeof setup>) {
  const dirs = [m.outside, join(m.home, '.local', 'run'), join(m.base, 'run', 'user')];
  for (const d of dirs) mkdirSync(d, { recursive: true });
  const listeners = await socketListeners(dirs);
  const paths = [...new Set([...listeners.paths, ...visibleSocketFiles({ home: m.home })])];
  return { listeners, paths };
}

/** Run the reach probe through bash: each path's answer. */
async function reach(m: ReturnType<typeof setup>, host: Awaited<ReturnType<ReturnType<typeof setup>['open']>>, paths: readonly string[], before = '') {
  const probe = writeReachProbe(m.project, paths);
  const command = `${before}${probe.argv.map((a) => `'${a}'`).join(' ')}`;
  const r = await m.bash(host, command);
  const json = /\{.*\}/s.exec(r.text)?.[0];
  expect(json, r.text).toBeDefined();
  return { ...r, answers: JSON.parse(json!) as Record<string, string> };
}

describe.skipIf(!bwrapWorks)('Unix sockets from inside the sandbox (seccomp)', () => {
  it('the probe reaches the listeners without the sandbox, so the tests below can fail', async () => {
    const m = setup({ sandbox: { mode: 'off' } });
    const { listeners, paths } = await targets(m);
    try {
      const host = await m.open();
      const r = await reach(m, host, listeners.paths);
      for (const path of listeners.paths) expect(r.answers[path], path).toBe('connected');
      // A connection is counted when the listener's accept runs, which may come after the answer.
      await vi.waitFor(() => expect(listeners.accepted()).toBe(listeners.paths.length));
      expect(paths.length).toBeGreaterThanOrEqual(listeners.paths.length);
    } finally {
      await listeners.close();
    }
  });

  it('no socket file on the machine can be reached by a command: its own listeners outside the workspace and every socket it can see', async () => {
    const m = setup();
    const { listeners, paths } = await targets(m);
    try {
      const host = await m.open();
      expect(host.sandbox.service.status).toMatchObject({ active: true, unixSockets: 'blocked' });
      const r = await reach(m, host, paths);
      expect(r.details?.sandboxed).toBe(true);
      for (const path of paths) expect(r.answers[path], path).toBe('EPERM');
      expect(listeners.accepted()).toBe(0);
      // The model is told what refused it.
      expect(host.sandbox.describe(m.project)).toContain('Unix sockets: none can be opened (seccomp filter)');
    } finally {
      await listeners.close();
    }
  });

  it.skipIf(!hasCurl || !hasSocat)('a command that may use the network still reaches an allowed host through the proxy, and still no socket', async () => {
    const server = createHttpServer((_req, res) => res.end('served through the proxy\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const m = setup({}, ['net(127.0.0.1)']);
    const { listeners, paths } = await targets(m);
    try {
      const host = await m.open();
      const first = await m.bash(host, `curl -s http://127.0.0.1:${port}/`);
      expect(first.text).toContain('served through the proxy');
      // Now the proxy's own socket exists too (socat's bridge reaches it from the outer sandbox).
      const all = [...new Set([...paths, ...visibleSocketFiles({ home: m.home })])];
      expect(all.some((p) => p.endsWith('/proxy.sock'))).toBe(true);
      const r = await reach(m, host, all, `curl -s http://127.0.0.1:${port}/ && `);
      expect(r.text).toContain('served through the proxy');
      for (const path of all) expect(r.answers[path], path).toBe('EPERM');
      expect(listeners.accepted()).toBe(0);
    } finally {
      await listeners.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it.skipIf(!hasPython)('the ways around a naive filter fail too, and so does every socket family no namespace covers (vsock) and the keyring; what programs need still works', async () => {
    const m = setup();
    writeFileSync(
      join(m.project, 'tricks.py'),
      [
        'import ctypes, json, socket, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'libc.syscall.restype = ctypes.c_long',
        'out = {}',
        'def attempt(name, fn):',
        '    try:',
        '        fn(); out[name] = "ok"',
        '    except OSError as e:',
        '        out[name] = os.strerror(e.errno)',
        'def raw(name, *args):',
        '    r = libc.syscall(*[ctypes.c_long(a) for a in args])',
        '    out[name] = "ok" if r >= 0 else os.strerror(ctypes.get_errno())',
        'attempt("stream", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))',
        'attempt("dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))',
        'attempt("seqpacket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET))',
        'attempt("dgram pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))',
        'raw("domain with high bits set", 41, (1 << 32) | 1, 1, 0)',
        'raw("domain with high bits set, dgram", 41, (1 << 40) | 1, 2 | 0o4000, 0)',
        'params = ctypes.create_string_buffer(120)',
        'raw("io_uring_setup", 425, 4, ctypes.addressof(params))',
        'import platform',
        'KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]',
        'raw("keyctl (the user keyring)", KEYCTL, 0, -4, 0)',
        // Families no namespace covers: an allow list refuses every one but inet, inet6 and netlink.
        'for name, family in [("vsock", 40), ("packet", 17), ("xdp", 44), ("bluetooth", 31), ("alg", 38), ("tipc", 30), ("future family 63", 63)]:',
        '    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_SEQPACKET):',
        '        r = libc.syscall(41, family, kind, 0)',
        '        if r >= 0 or ctypes.get_errno() != 1: out[name] = "not refused: type %d, %s" % (kind, os.strerror(ctypes.get_errno()) if r < 0 else "opened"); break',
        '    else: out[name] = "Operation not permitted"',
        'attempt("seqpacket pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))',
        'attempt("netlink (addresses, getaddrinfo)", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))',
        'attempt("stream pair (pipes for child processes)", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM))',
        'attempt("inet socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))',
        'attempt("inet6 socket", lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM))',
        'print(json.dumps(out))',
      ].join('\n'),
    );
    const host = await m.open();
    const r = await m.bash(host, 'python3 tricks.py');
    const out = JSON.parse(/\{.*\}/s.exec(r.text)![0]) as Record<string, string>;
    const families = ['vsock', 'packet', 'xdp', 'bluetooth', 'alg', 'tipc', 'future family 63'];
    for (const refused of ['stream', 'dgram', 'seqpacket', 'dgram pair', 'domain with high bits set', 'domain with high bits set, dgram', 'io_uring_setup', 'keyctl (the user keyring)', ...families]) {
      expect(out[refused], refused).toBe('Operation not permitted');
    }
    for (const works of ['stream pair (pipes for child processes)', 'seqpacket pair', 'inet socket', 'inet6 socket', 'netlink (addresses, getaddrinfo)']) expect(out[works], works).toBe('ok');
    // Programs that pipe to their children keep working: node, python, git.
    const usual = await m.bash(host, `node -e "require('child_process').execFileSync('true')" && python3 -c "import subprocess; subprocess.run(['true'], check=True)" && git --version >/dev/null && echo fine`);
    expect(usual.text).toContain('fine');
  });

  it('variables that name a socket do not reach the command: the known names, and any value that is a socket path or a unix: address', async () => {
    const m = setup();
    const { listeners } = await targets(m);
    try {
      const socket = listeners.paths[0]!;
      const env = {
        ...m.env,
        SSH_AUTH_SOCK: socket,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
        DISPLAY: ':0',
        TMUX: '/tmp/tmux-1000/default,1234,0',
        DOCKER_HOST: 'unix:///var/run/docker.sock',
        VSCODE_IPC_HOOK_CLI: '/run/user/1000/vscode-ipc-1.sock',
        // Not on any list: found by what they hold.
        MY_TOOL_SOCKET: socket,
        SOME_DAEMON: `--listen=unix:${socket}`,
        SEARCH_PATH: `/usr/share:${socket}`,
        KEEP_ME: 'plain value',
        KEEP_PATH: m.project,
      };
      const host = await m.open({ env });
      const r = await m.bash(host, 'env | cut -d= -f1 | sort');
      const names = r.text.split('\n');
      for (const gone of ['SSH_AUTH_SOCK', 'DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'TMUX', 'DOCKER_HOST', 'VSCODE_IPC_HOOK_CLI', 'MY_TOOL_SOCKET', 'SOME_DAEMON', 'SEARCH_PATH']) {
        expect(names, gone).not.toContain(gone);
      }
      for (const kept of ['KEEP_ME', 'KEEP_PATH', 'PATH', 'HOME']) expect(names, kept).toContain(kept);
    } finally {
      await listeners.close();
    }
  });
});

describe('where the seccomp filter cannot apply', () => {
  it.skipIf(!bwrapWorks)('auto: the sandbox runs weaker, says so once at start and in policy explain', async () => {
    const m = setup();
    const host = await m.open({ sandboxArch: 'riscv64' });
    expect(host.sandbox.service.status).toMatchObject({ mode: 'auto', active: true, unixSockets: 'reachable' });
    const warnings = host.diagnostics.filter((d) => d.code === 'AIRLOCK_SANDBOX_WEAKER');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('riscv64');
    expect(warnings[0]!.message).toContain('any Unix socket');
    expect(host.sandbox.describe(m.project)).toContain('Unix sockets: REACHABLE');
    const r = await m.bash(host, 'echo still runs');
    expect(r).toMatchObject({ outcome: 'ok' });
    expect(r.details?.sandboxed).toBe(true);
  });

  it.skipIf(!bwrapWorks)('required: every command is refused, with what is missing and what to do', async () => {
    const m = setup({ sandbox: { mode: 'required' } });
    const host = await m.open({ sandboxArch: 'riscv64' });
    expect(host.sandbox.service.status).toMatchObject({ mode: 'required', active: false });
    const warning = host.diagnostics.find((d) => d.code === 'AIRLOCK_SANDBOX_UNAVAILABLE');
    expect(warning?.message).toContain('cannot block Unix sockets');
    const r = await m.bash(host, 'echo hi > made.txt');
    expect(r.outcome).toBe('error');
    expect(r.text).toContain('Blocked: sandbox.mode is "required"');
    expect(host.sandbox.describe(m.project)).toContain('cannot block Unix sockets');
  });

  it.skipIf(!bwrapWorks)('a bubblewrap that cannot load the filter (a kernel without seccomp) is told apart from no sandbox', async () => {
    const m = setup();
    // Stands for a kernel without seccomp filters: bubblewrap fails whenever it is given one.
    const fake = join(m.base, 'bwrap-without-seccomp');
    writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do [ "$a" = --seccomp ] && { echo "bwrap: prctl(PR_SET_SECCOMP): Invalid argument" >&2; exit 1; }; done\nexec bwrap "$@"\n', { mode: 0o755 });
    const host = await m.open({ sandboxProgram: fake });
    expect(host.sandbox.service.status).toMatchObject({ active: true, unixSockets: 'reachable' });
    expect(host.diagnostics.find((d) => d.code === 'AIRLOCK_SANDBOX_WEAKER')?.message).toContain('could not load the seccomp filter');
    expect((await m.bash(host, 'echo runs')).text).toContain('runs');
  });
});

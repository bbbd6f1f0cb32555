import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { inheritedDescriptors } from '../../src/sandbox/inherited-fds.js';
import { launchLine } from '../../src/sandbox/launch.js';
import { unixSocketFilter } from '../../src/sandbox/seccomp.js';
import { withoutSocketVariables } from '../../src/sandbox/socket-env.js';

describe('the seccomp program', () => {
  it('is built for x86_64 and arm64 only, as whole 8-byte instructions whose jumps land inside it', () => {
    for (const arch of ['x64', 'arm64']) {
      const program = unixSocketFilter(arch)!;
      expect(program.length % 8).toBe(0);
      const count = program.length / 8;
      expect(count).toBeGreaterThan(10);
      for (let i = 0; i < count; i++) {
        const code = program.readUInt16LE(i * 8);
        // A conditional jump's targets lie within the program (the kernel's verifier refuses others).
        if ((code & 0x07) === 0x05 && code !== 0x05) {
          expect(i + 1 + program.readUInt8(i * 8 + 2)).toBeLessThan(count);
          expect(i + 1 + program.readUInt8(i * 8 + 3)).toBeLessThan(count);
        }
      }
      // It ends in returns (allow / EPERM / kill), so no path falls off its end.
      expect(program.readUInt16LE((count - 1) * 8)).toBe(0x06);
    }
    for (const arch of ['ia32', 'riscv64', 'ppc64', 's390x', 'loong64', 'arm']) expect(unixSocketFilter(arch), arch).toBeUndefined();
  });

  it('compares only the low 32 bits of the socket domain (the kernel reads an int): no load from the high word', () => {
    const program = unixSocketFilter('x64')!;
    const loads = [];
    for (let i = 0; i < program.length / 8; i++) if (program.readUInt16LE(i * 8) === 0x20) loads.push(program.readUInt32LE(i * 8 + 4));
    expect(loads).not.toContain(20); // args[0]'s high word
    expect(loads).toContain(16); // args[0]'s low word
  });
});

describe('the command line that starts a sandboxed command', () => {
  const base = { bwrap: '/usr/bin/bwrap', sandbox: ['--ro-bind', '/', '/'], argv: ['bash', '-c', 'echo "$1"', 'x'], cwd: '/w' };

  it('without the filter and nothing to close, bubblewrap is started directly', () => {
    expect(launchLine(base)).toEqual({ file: '/usr/bin/bwrap', args: ['--ro-bind', '/', '/', '--', 'bash', '-c', 'echo "$1"', 'x'] });
  });

  it('with the filter, a shell opens it on descriptor 3 and runs bubblewrap in its place; the command line passes through unchanged', () => {
    const dir = makeTempDir('airlock-launch-');
    const filter = join(dir, 'filter.bpf');
    writeFileSync(filter, 'program bytes');
    const line = launchLine({ ...base, bwrap: '/bin/sh', sandbox: ['-c', 'cat <&3; printf " [%s]" "$@"', 'sh'], argv: ['a b', '$HOME', "'q'"], filter });
    expect(line.file).toBe('/bin/sh');
    // Stand-in for bubblewrap: show what it got on descriptor 3 and its arguments.
    const out = spawnSync(line.file, line.args, { encoding: 'utf8' }).stdout;
    expect(out).toBe("program bytes [--seccomp] [3] [--] [a b] [$HOME] ['q']");
  });

  it('descriptors the process inherited are closed before bubblewrap starts, with a shell that takes their numbers (dash takes 0-9 only)', () => {
    expect(launchLine({ ...base, close: [5] }).file).toBe('/bin/sh');
    expect(launchLine({ ...base, close: [5, 251] }).file).toBe('/bin/bash');
    const line = launchLine({ ...base, bwrap: '/bin/sh', sandbox: ['-c', 'ls /proc/self/fd | sort -n | tr "\\n" " "', 'sh'], close: [7, 251] });
    // Hand the shell descriptors 7 and 251 the way an inheriting parent would, through bash.
    const shown = spawnSync('/bin/bash', ['-c', `exec 7</dev/null 251</dev/null; exec "$@"`, 'x', line.file, ...line.args], { encoding: 'utf8' }).stdout;
    expect(shown.trim().split(' ')).toEqual(['0', '1', '2', '3']); // 3: ls's own listing
  });

  it("never runs the person's ~/.bashrc, though a server's stdin is a socket (bash takes that for ssh)", async () => {
    const home = makeTempDir('airlock-launch-home-');
    const marker = join(home, 'bashrc-ran');
    writeFileSync(join(home, '.bashrc'), `echo ran > ${JSON.stringify(marker)}\n`);
    writeFileSync(join(home, '.bash_profile'), `echo ran > ${JSON.stringify(marker)}\n`);
    const lines = [
      launchLine({ ...base, bwrap: '/usr/bin/env', sandbox: [], argv: ['echo', 'started'], close: [251] }),
      launchLine({ ...base, bwrap: '/usr/bin/env', sandbox: [], argv: ['echo', 'started'], proxy: { socat: 'true', socket: '/nonexistent' } }),
    ];
    for (const line of lines) {
      // What Node gives a server (an MCP server, a hook) for stdin: a socket pair, with a short environment.
      const child = spawn(line.file, line.args, { env: { HOME: home, PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise((done) => child.on('close', done));
      child.stdin.destroy();
      expect(out, line.file).toContain('started');
      expect(existsSync(marker), `${line.file} ${line.args.slice(0, 3).join(' ')}`).toBe(false);
    }
  });
});

describe('variables that name a way out', () => {
  it('known names go, and so does any variable holding a socket path or a unix: address, whatever its name', async () => {
    const dir = makeTempDir('airlock-sockenv-');
    const socket = join(dir, 'agent.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const names = ['X', 'MY_AGENT', 'npm_config_x', 'A_B_C_SOCKET_DIR'];
      const holding = [socket, `${socket}:/usr/bin`, `/usr/bin,${socket}`, `path=${socket}`, 'unix:path=/run/bus', 'unix:///var/run/docker.sock', `--listen=unix:${socket}`];
      for (const name of names) {
        for (const value of holding) expect(withoutSocketVariables({ [name]: value, KEEP: 'v' }), `${name}=${value}`).toEqual({ KEEP: 'v' });
      }
      for (const name of ['SSH_AUTH_SOCK', 'DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'TMUX', 'STY', 'DOCKER_HOST', 'GPG_AGENT_INFO', 'VSCODE_IPC_HOOK_CLI', 'NVIM', 'KITTY_LISTEN_ON', 'XDG_RUNTIME_DIR']) {
        expect(withoutSocketVariables({ [name]: 'anything', KEEP: 'v' }), name).toEqual({ KEEP: 'v' });
      }
      // Paths that are not sockets, and text that only mentions the word, stay.
      const keep = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: dir, NOTE: 'unixish: no', FILE: join(dir, 'missing.sock'), URL: 'https://example.com/unix:x' };
      expect(withoutSocketVariables(keep)).toEqual(keep);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('descriptors a child would inherit', () => {
  it("are found by their missing close-on-exec flag; Node's own are never listed", () => {
    // A Node process handed descriptor 200 by a shell, as a parent might (it also gets whatever this runner leaks).
    const module = fileURLToPath(new URL('../../src/sandbox/inherited-fds.ts', import.meta.url));
    const code = `require('jiti').createJiti(${JSON.stringify(module)}).import(${JSON.stringify(module)}).then((m) => console.log(JSON.stringify(m.inheritedDescriptors())))`;
    const child = spawnSync('/bin/bash', ['-c', 'exec 200</dev/null; exec "$@"', 'x', process.execPath, '-e', code], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    const found = JSON.parse(child.stdout) as number[];
    expect(found).toContain(200);
    expect(found.every((fd) => fd > 2)).toBe(true);
    // In this process: whatever the runner handed down, never 0-2.
    expect(inheritedDescriptors().every((fd) => fd > 2)).toBe(true);
  });
});

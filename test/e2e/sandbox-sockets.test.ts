import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { bubblewrapWorks, scaledMs, socketListeners } from '@airlock/kernel/testing';
import { BIN, sandbox } from './harness.js';

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
const canRun = bubblewrapWorks();

/**
 * A machine where bash commands run in the OS sandbox and the user allowed exactly the given
 * command lines (so the sandbox, not the policy, is what stands in the way), with a folder
 * outside the project the attacks aim at.
 */
function machine(allow: string[]) {
  const s = sandbox();
  const outside = join(s.base, 'outside');
  mkdirSync(outside);
  s.write('home/.config/airlock/settings.json', { permissions: { allow } });
  return { ...s, outside };
}

const outcome = (stderr: string) => /→ (\w+)/.exec(stderr)?.[1];

describe.skipIf(!canRun)("the trial's attacks on Unix sockets, through the real CLI", () => {
  it.skipIf(!has('tmux'))("tmux send-keys to the user's tmux server does not make its shell run anything", async () => {
    const m = machine(['bash(bash attack.sh)']);
    const socket = join(m.outside, 'tmux.sock');
    const pwned = join(m.outside, 'pwned');
    execFileSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 's', 'sh'], { env: { ...process.env, HOME: m.home } });
    try {
      writeFileSync(join(m.project, 'attack.sh'), `tmux -S ${socket} send-keys -t s 'touch ${pwned}' Enter\n`);
      const r = await m.airlock(['call', 'bash', '{"command":"bash attack.sh"}']);
      expect(outcome(r.stderr)).toBe('error');
      expect(r.stdout).toMatch(/Operation not permitted|error connecting/i);
      // Control: the same keys sent from outside do reach the shell, so the test can fail.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(existsSync(pwned)).toBe(false);
      execFileSync('tmux', ['-S', socket, 'send-keys', '-t', 's', `touch ${pwned}.control`, 'Enter']);
      await vi.waitFor(() => expect(existsSync(`${pwned}.control`)).toBe(true), { timeout: scaledMs(5000) });
    } finally {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    }
  });

  it.skipIf(!has('ssh-agent') || !has('ssh-keygen') || !has('ssh-add'))("ssh-keygen cannot sign with the user's agent-held key, even naming the socket itself", async () => {
    const m = machine(['bash(bash sign.sh)']);
    const agentSocket = join(m.outside, 'agent.sock');
    // The key lives where the sandbox hides it (~/.ssh): only the agent could sign with it.
    mkdirSync(join(m.home, '.ssh'), { mode: 0o700 });
    const key = join(m.home, '.ssh', 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const agent = spawn('ssh-agent', ['-D', '-a', agentSocket], { stdio: 'ignore' });
    try {
      await vi.waitFor(() => expect(existsSync(agentSocket)).toBe(true), { timeout: scaledMs(5000) });
      execFileSync('ssh-add', [key], { env: { ...process.env, SSH_AUTH_SOCK: agentSocket }, stdio: 'ignore' });
      writeFileSync(join(m.project, 'data.txt'), 'sign me\n');
      writeFileSync(join(m.project, 'sign.sh'), `SSH_AUTH_SOCK=${agentSocket} ssh-keygen -Y sign -f ${key}.pub -n file data.txt\n`);
      const r = await m.airlock(['call', 'bash', '{"command":"bash sign.sh"}'], { env: { SSH_AUTH_SOCK: agentSocket } });
      expect(outcome(r.stderr)).toBe('error');
      expect(existsSync(join(m.project, 'data.txt.sig'))).toBe(false);
      // Control: outside the sandbox the agent signs.
      execFileSync('bash', ['sign.sh'], { cwd: m.project, stdio: 'ignore' });
      expect(existsSync(join(m.project, 'data.txt.sig'))).toBe(true);
    } finally {
      agent.kill();
    }
  });

  it('a plain connect to a listener in a folder outside the workspace sends and receives nothing', async () => {
    const m = machine(['bash(node connect.cjs)']);
    const listeners = await socketListeners([m.outside]);
    try {
      writeFileSync(
        join(m.project, 'connect.cjs'),
        `const s = require('node:net').connect(${JSON.stringify(listeners.paths[0])});\n` +
          `s.on('data', (d) => process.stdout.write('got: ' + d));\ns.on('connect', () => s.write('bytes out\\n'));\n` +
          `s.on('error', (e) => { console.log('refused: ' + e.code); process.exit(1); });\n`,
      );
      const r = await m.airlock(['call', 'bash', '{"command":"node connect.cjs"}']);
      expect(r.stdout).toContain('refused: EPERM');
      expect(r.stdout).not.toContain('got:');
      expect(listeners.accepted()).toBe(0);
    } finally {
      await listeners.close();
    }
  });

  it("a Unix socket Airlock's own process inherited is not passed into the sandbox", async () => {
    const m = machine(['bash(echo leaked >&7; ls /proc/self/fd)']);
    const received: string[] = [];
    const listeners = await socketListeners([m.outside]);
    const { createServer } = await import('node:net');
    const inherited = join(m.outside, 'inherited.sock');
    const server = createServer((c) => c.on('data', (d: Buffer) => received.push(d.toString())).on('error', () => {}));
    await new Promise<void>((resolve) => server.listen(inherited, resolve));
    const client = connect(inherited);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    try {
      // The CLI gets the connected socket as descriptor 7, as a parent process might leave one.
      const r = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'call', 'bash', '{"command":"echo leaked >&7; ls /proc/self/fd"}'], {
          cwd: m.project,
          env: { ...process.env, HOME: m.home, XDG_CONFIG_HOME: join(m.home, '.config'), NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'ignore', 'ignore', client],
        });
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', () => resolve({ stdout, stderr }));
      });
      expect(r.stdout).toMatch(/7: Bad file descriptor/);
      const listed = r.stdout.split('\n').filter((l) => /^\d+$/.test(l));
      expect(listed.filter((fd) => Number(fd) > 3)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received.join('')).toBe('');
    } finally {
      client.destroy();
      await listeners.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it.skipIf(!has('curl') || !has('socat') || process.getuid?.() !== 0)(
    'as a user other than root (the nested sandbox beside the proxy makes a user namespace): an allowed host is reached, no socket is',
    async () => {
      const server = createHttpServer((_req, res) => res.end('reached through the proxy\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      const m = machine(['bash(bash attack.sh)', 'net(127.0.0.1)']);
      // The user's own files, as they would be: settings in a folder only that user writes.
      chmodSync(m.base, 0o755);
      for (const path of [m.project, m.home, join(m.home, '.config'), join(m.home, '.config', 'airlock'), join(m.home, '.config', 'airlock', 'settings.json')]) chownSync(path, 65534, 65534);
      const listeners = await socketListeners([m.outside]);
      chmodSync(listeners.paths[0]!, 0o777);
      try {
        writeFileSync(join(m.project, 'attack.sh'), `curl -s http://127.0.0.1:${port}/\nnode -e "require('net').connect('${listeners.paths[0]}').on('error', (e) => console.log('socket: ' + e.code)).on('connect', () => console.log('socket: connected'))"\nid -u\n`);
        chownSync(join(m.project, 'attack.sh'), 65534, 65534);
        const r = await m.airlock(['call', 'bash', '{"command":"bash attack.sh"}'], { uid: 65534 });
        expect(r.stdout, r.stderr).toContain('reached through the proxy');
        expect(r.stdout).toContain('socket: EPERM');
        expect(r.stdout).toContain('65534');
        expect(listeners.accepted()).toBe(0);
      } finally {
        await listeners.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});

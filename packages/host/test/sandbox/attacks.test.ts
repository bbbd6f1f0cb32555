import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolUI } from '@airlock/contract';
import { API_KEY, bwrapWorks, hasProgram, machinesClosedAfterEach, SECRET } from './support.js';
import { scaledMs } from '@airlock/kernel/testing';

const hasSocat = hasProgram('socat', '-V');
const setup = machinesClosedAfterEach();

/**
 * Commands the shell analysis cannot fully read (bash runs strings as code), each trying to read
 * a secret. With `bash(*)` allowed, the sandbox is the only thing in the way.
 */
const READS = [
  'source /dev/stdin <<< "cat .env"',
  'x=\'$(cat .env)\'; echo "${x@P}"',
  'trap "cat .env" EXIT; true',
  'PS4=\'$(cat .env)\' bash -xc :',
  'printf "cat .env\\n" > s.sh; BASH_ENV=s.sh bash -c true',
  'mapfile -C "cat .env #" -c 1 <<< "a"',
  'ln -s .env lk && base64 lk | base64 -d',
  'awk \'BEGIN { while ((getline l < ARGV[1]) > 0) print l }\' .env',
  'od -c -w64 .env',
  'cp .env copy.txt; cat copy.txt',
  'tar cf - .env | tar xOf -',
];

describe.skipIf(!bwrapWorks)('the OS sandbox under bash (auto mode, bubblewrap available)', () => {
  it('secret bytes never reach the result, whatever bash trick reads them', async () => {
    const m = setup();
    // A person's exact "yes" to each, so the asks for what the analysis cannot read are out of the
    // way; what still stops a command before it runs is a deny (a secret file the analysis sees).
    m.approve(...READS);
    const host = await m.open();
    expect(host.sandbox.service.status.active).toBe(true);
    for (const command of READS) {
      const r = await m.bash(host, command);
      expect(r.text, command).not.toContain(SECRET);
      // Not an ask nobody answered: either it ran (in the sandbox) or a deny rule stopped it.
      expect(r.text, command).not.toMatch(/^Denied by approval/);
    }
    // A secret folder outside the workspace that a user's fs.read deny rule names.
    for (const command of [`source /dev/stdin <<< "cat ${m.vault}/token"`, `eval "cat ${m.vault}/*"`, `ls -la ${m.vault}`]) {
      const r = await m.bash(host, command);
      expect(r.text, command).not.toContain(SECRET);
    }
  });

  it('a secret file that appears between two commands is hidden from the next one (the walk notices changed folders)', async () => {
    const m = setup();
    mkdirSync(join(m.project, 'config'));
    m.approve('source /dev/stdin <<< "cat config/.env.production"', 'source /dev/stdin <<< "cat config/server.key"');
    const host = await m.open();
    expect((await m.bash(host, 'ls config')).outcome).toBe('ok');
    writeFileSync(join(m.project, 'config', '.env.production'), `${SECRET}\n`);
    writeFileSync(join(m.project, 'config', 'server.key'), `${SECRET}\n`);
    for (const command of ['source /dev/stdin <<< "cat config/.env.production"', 'source /dev/stdin <<< "cat config/server.key"']) {
      const r = await m.bash(host, command);
      expect(r.text, command).not.toContain(SECRET);
      expect(r.text, command).toContain('Permission denied');
    }
  });

  it('the same trick leaks without the sandbox (sandbox.mode off) once a person approved it, so the test above can fail', async () => {
    // Without the sandbox the policy asks for it; the exact command allowed stands for the person's "yes".
    const m = setup({ sandbox: { mode: 'off' } }, [`bash(${READS[0]})`]);
    const host = await m.open();
    expect(host.sandbox.service.status.active).toBe(false);
    const r = await m.bash(host, READS[0]!);
    expect(r.text).toContain(SECRET);
    expect(r.details?.sandboxed).toBeUndefined();
  });

  it('no file appears outside the workspace, and Airlock\'s own files stay as they were', async () => {
    const m = setup();
    const projectSettings = join(m.project, '.airlockrc.json');
    writeFileSync(projectSettings, '{}');
    const host = await m.open();
    const trust = join(m.config, 'trust.json');
    const before = readFileSync(trust, 'utf8');
    const writes = [
      `source /dev/stdin <<< "echo pwned > ${m.outside}/a"`,
      `awk 'BEGIN { print "pwned" > "${m.outside}/b" }'`,
      `sort --out=${m.outside}/c /dev/null`,
      `tee --output-error ${m.outside}/d < /dev/null`,
      `cp --target=${m.outside} .env`,
      `sed -n --expr='w ${m.outside}/e' /dev/null`,
      `mkdir ${m.outside}/f`,
      `ln -s ${m.outside} out && echo pwned > out/g`,
      `eval "printf '{}' > ${trust}"`,
      `source /dev/stdin <<< "echo '{}' > ${m.home}/.config/airlock/settings.json"`,
      `echo pwned > ${m.home}/.bashrc`,
      `source /dev/stdin <<< "echo '{\"sandbox\":{\"mode\":\"off\"}}' > .airlockrc.json"`,
    ];
    for (const command of writes) {
      const r = await m.bash(host, command);
      expect(r.outcome, command).not.toBe('ok');
    }
    expect(readdirSync(m.outside)).toEqual([]);
    expect(readdirSync(m.base).sort()).toEqual(['home', 'outside', 'project', 'state', 'vault'].filter((d) => existsSync(join(m.base, d))));
    expect(readFileSync(trust, 'utf8')).toBe(before);
    expect(existsSync(join(m.home, '.bashrc'))).toBe(false);
    expect(readFileSync(projectSettings, 'utf8')).toBe('{}');
    expect(JSON.parse(readFileSync(join(m.config, 'settings.json'), 'utf8')).permissions.allow).toEqual(['bash(*)']);
  });

  it('writes outside fail as "Read-only file system", secrets as "Permission denied", each with a hint naming what to change', async () => {
    const m = setup();
    m.approve(`source /dev/stdin <<< "echo x > ${m.outside}/a"`, 'source /dev/stdin <<< "cat .env"');
    const host = await m.open();
    const ro = await m.bash(host, `source /dev/stdin <<< "echo x > ${m.outside}/a"`);
    expect(ro.outcome).toBe('error');
    expect(ro.text).toContain('Read-only file system');
    expect(ro.text).toContain("path-policy's roots");
    const pd = await m.bash(host, 'source /dev/stdin <<< "cat .env"');
    expect(pd.text).toContain('Permission denied');
    expect(pd.text).toContain('fs.read(<path>)');
  });

  it('a git hook or fsmonitor planted by a command cannot run later outside the sandbox', async () => {
    const m = setup();
    execFileSync('git', ['init', '-q', m.project]);
    const config = readFileSync(join(m.project, '.git', 'config'), 'utf8');
    const host = await m.open();
    const marker = join(m.outside, 'pwned');
    await m.bash(host, `git config core.fsmonitor "touch ${marker}"; git status`);
    await m.bash(host, `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`);
    expect(readFileSync(join(m.project, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(join(m.project, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('editor tasks and a core.hooksPath folder stay read-only under a command the analysis cannot read (one list with path-policy)', async () => {
    const m = setup();
    execFileSync('git', ['init', '-q', m.project]);
    execFileSync('git', ['-C', m.project, 'config', 'core.hooksPath', '.githooks']);
    mkdirSync(join(m.project, '.vscode'));
    mkdirSync(join(m.project, '.githooks'));
    writeFileSync(join(m.project, '.vscode', 'tasks.json'), '{}\n');
    const command = 'source /dev/stdin <<< "printf pwned > .vscode/tasks.json; printf pwned > .githooks/pre-commit; printf ok > plain.txt"';
    m.approve(command);
    const host = await m.open();
    const r = await m.bash(host, command);
    expect(r.details?.sandboxed).toBe(true);
    expect(readFileSync(join(m.project, '.vscode', 'tasks.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(m.project, '.githooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(m.project, 'plain.txt'), 'utf8')).toBe('ok');
  });

  it("ps of the parent shows no Airlock process and no API key: the command has its own PID namespace", async () => {
    const m = setup();
    const host = await m.open();
    for (const command of ['ps eww -o args= $PPID', 'cat /proc/1/environ | tr "\\0" "\\n"', 'ps -eo args', `cat /proc/${process.pid}/environ`]) {
      const r = await m.bash(host, command);
      expect(r.text, command).not.toContain(API_KEY);
      expect(r.text, command).not.toContain(process.execPath);
    }
  });

  it('network: a local server is out of reach by default, even when a person let the command run', async () => {
    // The host is in a variable: the analysis cannot name it, so the "yes" covers no host and only
    // the sandbox stands in the way.
    const m = setup();
    const dynamic = (port: number, extra = '') => `h=127.0.0.1; curl -sS ${extra}--max-time 3 "http://$h:${port}/"`;
    await withServer(async (port) => {
      m.approve(dynamic(port), dynamic(port, "--noproxy '*' "));
      const host = await m.open();
      const r = await m.bash(host, dynamic(port));
      expect(r.outcome).toBe('error');
      expect(r.text).not.toContain('REACHED');
      expect(r.text).toContain('network blocked by the sandbox: host 127.0.0.1');
      const direct = await m.bash(host, dynamic(port, "--noproxy '*' "));
      expect(direct.outcome).toBe('error');
      expect(direct.text).not.toContain('REACHED');
    });
  });

  it.skipIf(!hasSocat)('network: a net(127.0.0.1) allow rule lets curl reach it through the proxy; other hosts and direct connections stay blocked', async () => {
    const m = setup({}, ['net(127.0.0.1)']);
    await withServer(async (port) => {
      const around = `curl -sS --noproxy '*' --max-time 3 http://127.0.0.1:${port}/`;
      const other = `h=localhost; curl -sS --max-time 3 "http://$h:${port}/"`;
      m.approve(around, other);
      const host = await m.open();
      expect(host.sandbox.describe(m.project)).toContain("only 127.0.0.1 (net allow rules) through Airlock's proxy");
      const r = await m.bash(host, `curl -sS --max-time 5 http://127.0.0.1:${port}/`);
      expect(r.outcome, r.text).toBe('ok');
      expect(r.text).toContain('REACHED');
      // Around the proxy: the sandbox has no route out.
      const direct = await m.bash(host, around);
      expect(direct.text).not.toContain('REACHED');
      // A host no rule names, hidden from the analysis: the proxy refuses it.
      const refused = await m.bash(host, other);
      expect(refused.text).not.toContain('REACHED');
      expect(refused.text).toContain('network blocked by the sandbox: host localhost');
    });
  });

  it.skipIf(!hasSocat)('network: a person approving a curl the analysis can read opens that host for that one command, not for the next', async () => {
    const m = setup();
    const asked: string[] = [];
    let answer: 'once' | 'deny' = 'once';
    // The approval extension's own prompt, answered as a person at the terminal would.
    const host = await m.open({ interactive: true, ui: person(asked, () => answer) });
    await withServer(async (port) => {
      const curl = `curl -sS --max-time 5 http://127.0.0.1:${port}/`;
      const r = await m.bash(host, curl);
      expect(asked).toHaveLength(1); // default:net asks about 127.0.0.1 …
      expect(asked[0]).toContain('127.0.0.1');
      expect(r.outcome, r.text).toBe('ok'); // … and the yes reaches the sandbox
      expect(r.text).toContain('REACHED');

      // The same host from a command whose host the analysis cannot name: the person was not
      // shown it, so the proxy refuses it even after a yes.
      const hidden = await m.bash(host, `h=127.0.0.1; curl -sS --max-time 3 "http://$h:${port}/"`);
      expect(asked).toHaveLength(2);
      expect(hidden.text).not.toContain('REACHED');
      expect(hidden.text).toContain('network blocked by the sandbox: host 127.0.0.1');

      // A refused ask: the command does not run at all.
      answer = 'deny';
      const refused = await m.bash(host, curl);
      expect(refused.outcome).toBe('denied');
      expect(refused.text).not.toContain('REACHED');
    });
  });

  it.skipIf(!hasSocat)("network: an approved command's grant ends with it; a later command cannot borrow its proxy credentials", async () => {
    const m = setup();
    const host = await m.open({ interactive: true, ui: person([], () => 'once') });
    await withServer(async (port) => {
      // The approved command writes its proxy address (with its token) where a later one can read it.
      const first = await m.bash(host, `curl -sS --max-time 5 http://127.0.0.1:${port}/ && printf %s "$http_proxy" > proxy.txt`);
      expect(first.text).toContain('REACHED');
      expect(readFileSync(join(m.project, 'proxy.txt'), 'utf8')).toMatch(/^http:\/\/airlock:[^@]+@127\.0\.0\.1:/);
      // A later command, approved for another host, sends the old token: that grant has ended.
      const borrowed = await m.bash(host, `curl -sS --max-time 3 -x "$(cat proxy.txt)" http://127.0.0.1:${port}/ ; curl -sS --max-time 3 http://example.invalid/`);
      expect(borrowed.text).not.toContain('REACHED');
      expect(borrowed.text).toContain('network blocked by the sandbox: host 127.0.0.1');
    });
  });

  it.skipIf(!hasSocat)('network: a wildcard allow rule opens every host it covers, and an ask rule inside it still holds', async () => {
    const dynamic = (port: number) => `h=127.0.0.1; curl -sS --max-time 3 "http://$h:${port}/"`;
    const m = setup({}, ['net(127.0.0.*)']);
    const asking = setup({}, ['net(127.0.0.*)']);
    const settingsFile = join(asking.config, 'settings.json');
    await withServer(async (port) => {
      m.approve(dynamic(port));
      const host = await m.open();
      expect(host.sandbox.describe(m.project)).toContain('127.0.0.* (net allow rules)');
      // The host is in a variable: only the rule, not an approval, can open it.
      const r = await m.bash(host, dynamic(port));
      expect(r.outcome, r.text).toBe('ok');
      expect(r.text).toContain('REACHED');

      asking.approve(dynamic(port));
      const user = JSON.parse(readFileSync(settingsFile, 'utf8')) as { permissions: { ask?: string[] } };
      user.permissions.ask = ['net(127.0.0.1)'];
      writeFileSync(settingsFile, JSON.stringify(user));
      const strict = await asking.open();
      const held = await asking.bash(strict, dynamic(port));
      expect(held.text).not.toContain('REACHED');
      expect(held.text).toContain('network blocked by the sandbox: host 127.0.0.1');
    });
  });
});

/** A person at the approval prompt: records each question and answers "Allow once" or "Deny", by id. */
function person(asked: string[], answer: () => 'once' | 'deny'): ToolUI {
  return {
    interactive: true,
    async ask(request) {
      asked.push(request.title);
      return { id: answer() };
    },
  };
}

/** A local HTTP server answering REACHED, for the length of `fn`. */
async function withServer(fn: (port: number) => Promise<void>): Promise<void> {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => res.end('REACHED'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn((server.address() as { port: number }).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe.skipIf(!bwrapWorks)('ordinary work still works inside the sandbox', () => {
  it('builds write inside the project, git status, npm test in a fixture, tools using $TMPDIR', async () => {
    // Writes anywhere allowed by the policy: what stays in the way of ordinary work is the sandbox alone.
    const m = setup({}, ['fs.write(//**)']);
    execFileSync('git', ['init', '-q', m.project]);
    writeFileSync(join(m.project, 'package.json'), JSON.stringify({ name: 'fixture', version: '1.0.0', scripts: { test: 'node test.js' } }));
    writeFileSync(
      join(m.project, 'test.js'),
      "const fs = require('fs'); const os = require('os'); const p = require('path').join(os.tmpdir(), 't.txt'); fs.writeFileSync(p, 'ok'); console.log('TESTS PASSED', fs.readFileSync(p, 'utf8'));\n",
    );
    const host = await m.open();
    // Written, then run, as two commands: running what the same line wrote asks (default:runs-written-file).
    expect((await m.bash(host, 'mkdir -p dist && echo "console.log(40 + 2)" > dist/main.js')).outcome).toBe('ok');
    const build = await m.bash(host, 'node dist/main.js');
    expect(build.outcome, build.text).toBe('ok');
    expect(build.text).toContain('42');
    expect(build.details?.sandboxed).toBe(true);
    expect(readFileSync(join(m.project, 'dist', 'main.js'), 'utf8')).toContain('40 + 2');

    const git = await m.bash(host, 'git status --short');
    expect(git.outcome).toBe('ok');
    expect(git.text).toContain('package.json');
    // The git folder's config and hooks are read-only in the sandbox; the rest of it is not. (The
    // project ignores its .env, as projects do: git add never opens it, so its hiding is no trouble.)
    writeFileSync(join(m.project, '.gitignore'), '.env\n');
    const commit = await m.bash(host, 'git add -A && git -c user.name=t -c user.email=t@example.com commit -qm build && git log --oneline');
    expect(commit.outcome, commit.text).toBe('ok');
    expect(commit.text).toContain('build');

    const npm = await m.bash(host, 'npm test --silent', 60);
    expect(npm.outcome, npm.text).toBe('ok');
    expect(npm.text).toContain('TESTS PASSED ok');

    const tmp = await m.bash(host, `mktemp && node -e "const f = require('path').join(require('os').tmpdir(), 'n.txt'); require('fs').writeFileSync(f, 'hello'); console.log(require('fs').readFileSync(f, 'utf8'))" && sort -S 1K package.json > /dev/null && echo sorted`);
    expect(tmp.outcome, tmp.text).toBe('ok');
    expect(tmp.text).toContain('hello');
    expect(tmp.text).toContain('sorted');
  });

  it('timeouts still stop the whole sandboxed tree', async () => {
    const m = setup();
    const host = await m.open();
    const started = Date.now();
    const r = await m.bash(host, 'sleep 30 & sleep 30; echo never', 1);
    expect(r.outcome).toBe('error');
    expect(r.text).toContain('timed out after 1 seconds');
    expect(Date.now() - started).toBeLessThan(scaledMs(8000, { below: 30_000 }));
  });
});

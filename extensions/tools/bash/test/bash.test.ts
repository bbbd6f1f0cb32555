import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createToolHarness, scaledMs } from '@airlock/kernel/testing';
import type { ToolHarnessOptions } from '@airlock/kernel/testing';
import extension, { BashOptions, createBashTool, loadCommandAnalysis, looksSecret, sanitize } from '../src/index.js';
import Value from 'typebox/value';

function harness(options: Parameters<typeof createBashTool>[0] = {}, kernel: ToolHarnessOptions = {}) {
  return createToolHarness(createBashTool({ killGraceMs: 300, ...options }), kernel);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}

describe('bash: basics (Pi tools.test.ts)', () => {
  it('runs a simple command', async () => {
    const h = harness();
    const r = await h.call({ command: 'echo hello' });
    expect(r.outcome).toBe('ok');
    expect(h.text(r)).toBe('hello\n');
    expect(r.details).toEqual({ exitCode: 0 });
  });

  it('says (no output) for a silent command', async () => {
    const h = harness();
    const r = await h.call({ command: 'true' });
    expect(h.text(r)).toBe('(no output)');
  });

  it('a non-zero exit is an error that keeps the output and the code', async () => {
    const h = harness();
    const r = await h.call({ command: 'echo before; echo oops >&2; exit 1' });
    expect(r.outcome).toBe('error');
    expect(h.text(r)).toContain('before\noops');
    expect(h.text(r)).toContain('Command exited with code 1');
  });

  it('times out quickly on timeout:1', async () => {
    const h = harness();
    const t0 = Date.now();
    const r = await h.call({ command: 'echo started; sleep 5', timeout: 1 });
    expect(Date.now() - t0).toBeLessThan(scaledMs(3000, { below: 5000 }));
    expect(r.isError).toBe(true);
    expect(h.text(r)).toContain('started');
    expect(h.text(r)).toContain('Command timed out after 1 seconds');
  });

  it('a missing cwd is a clear error', async () => {
    const h = harness({}, { cwd: '/nonexistent/airlock-bash-test' });
    const r = await h.call({ command: 'echo hi' });
    expect(r.isError).toBe(true);
    expect(h.text(r)).toContain('Working directory does not exist: /nonexistent/airlock-bash-test');
  });

  it('a bogus shellPath is a spawn error', async () => {
    const h = harness({ shellPath: '/nonexistent/shell' });
    const r = await h.call({ command: 'echo hi' });
    expect(r.isError).toBe(true);
    expect(h.text(r)).toMatch(/Could not start the shell \/nonexistent\/shell: .*ENOENT/);
  });

  it('uses shellPath', async () => {
    const h = harness({ shellPath: '/bin/sh' });
    const r = await h.call({ command: 'echo $0' });
    expect(h.text(r)).toBe('/bin/sh\n');
  });

  it('a trailing newline is not an extra line', async () => {
    const h = harness({}, { limits: { maxLines: 6 } });
    const r = await h.call({ command: 'printf "a\\nb\\n"' });
    expect(h.text(r)).toBe('a\nb\n');
    expect(r.details).toEqual({ exitCode: 0 });
  });

  it('decodes UTF-8 split across chunks', async () => {
    const h = harness();
    // "é" is C3 A9 and "😀" is F0 9F 98 80: written in pieces with pauses so they arrive apart.
    const r = await h.call({ command: "printf '\\303'; sleep 0.05; printf '\\251 \\360\\237'; sleep 0.05; printf '\\230\\200\\n'" });
    expect(h.text(r)).toBe('é 😀\n');
  });

  it('seq 3000 is cut by lines, and the spill file holds everything', async () => {
    const h = harness();
    const r = await h.call({ command: 'seq 3000' });
    expect(r.outcome).toBe('ok');
    const details = r.details as { truncation: { truncatedBy: string }; fullOutputPath: string };
    expect(details.truncation.truncatedBy).toBe('lines');
    expect(existsSync(details.fullOutputPath)).toBe(true);
    const full = readFileSync(details.fullOutputPath, 'utf8');
    expect(full).toContain('1\n2\n3\n');
    expect(full).toContain('2998\n2999\n3000');
    expect(h.text(r)).toContain(`[Showing lines 1005-3000 of 3000. Full output: ${details.fullOutputPath}]`);
    expect(h.text(r).startsWith('1005\n')).toBe(true);
  });

  it('a long last line gets the partial-line notice', async () => {
    const h = harness({}, { limits: { maxBytes: 1000 } });
    const r = await h.call({ command: 'head -c 3000 /dev/zero | tr "\\0" x' });
    expect(h.text(r)).toMatch(/\[Showing last 750B of line 1 \(line is 2\.9KB\)\. Full output: .*\.log\]$/);
  });

  it('small outputs leave no spill file behind', async () => {
    const h = harness();
    await h.call({ command: 'seq 10' });
    const dir = h.kernel.session.spillDir ?? undefined;
    if (typeof dir === 'string' && existsSync(dir)) {
      expect(execFileSync('find', [dir, '-type', 'f']).toString()).toBe('');
    }
  });

  it('truncated error outputs include the full-output path', async () => {
    const h = harness();
    const r = await h.call({ command: 'seq 3000; exit 3' });
    expect(h.text(r)).toMatch(/\[Showing lines 1005-3000 of 3000\. Full output: .*\.log\]\n\nCommand exited with code 3$/);
  });
});

describe('bash: process control', () => {
  it('SIGTERM first, SIGKILL after the grace period for a process trapping TERM', async () => {
    const h = harness({ killGraceMs: 500 });
    const t0 = Date.now();
    const r = await h.call({ command: 'trap "echo got TERM" TERM; echo ready; while true; do sleep 0.05; done', timeout: 1 });
    const took = Date.now() - t0;
    expect(h.text(r)).toContain('got TERM');
    expect(h.text(r)).toContain('Command timed out after 1 seconds');
    // The grace period passed before SIGKILL (a lower bound: a busy machine only makes it longer).
    expect(took).toBeGreaterThanOrEqual(1400);
  });

  it('abort kills the whole tree: no orphans', async () => {
    const h = harness();
    const controller = new AbortController();
    let grandchild: number | undefined;
    const call = h.call({ command: 'sh -c "sleep 1000" & echo pid=$!; wait' }, { signal: controller.signal });
    // The pid reaches us through the update stream; wait for it before aborting.
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const r = await call;
    const m = /pid=(\d+)/.exec(h.text(r));
    expect(m).not.toBeNull();
    grandchild = Number(m![1]);
    expect(r.outcome).toBe('aborted');
    expect(h.text(r)).toContain('Command aborted');
    expect(await waitGone(grandchild)).toBe(true);
  });

  it('abort also reaches processes that left the group with setsid, even re-parented to init', async () => {
    const h = harness();
    const controller = new AbortController();
    // One setsid child of the shell, and one whose parent subshell exits at once (a daemon).
    const call = h.call(
      { command: "setsid sh -c 'echo a=$$; exec sleep 1000' & (setsid sh -c 'echo b=$$; exec sleep 1000' &); wait" },
      { signal: controller.signal },
    );
    await new Promise((r) => setTimeout(r, 800));
    controller.abort();
    const r = await call;
    expect(r.outcome).toBe('aborted');
    const a = Number(/a=(\d+)/.exec(h.text(r))![1]);
    const b = Number(/b=(\d+)/.exec(h.text(r))![1]);
    const goneA = await waitGone(a);
    const goneB = await waitGone(b);
    for (const pid of [a, b]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    expect(goneA && goneB).toBe(true);
  });

  it('death by a signal is an error', async () => {
    const h = harness();
    const r = await h.call({ command: 'echo dying; kill -TERM $$' });
    expect(r.outcome).toBe('error');
    expect(h.text(r)).toContain('dying');
    expect(h.text(r)).toContain('Command was killed by SIGTERM');
  });

  it('`sleep 100 &` returns promptly', async () => {
    const h = harness();
    const t0 = Date.now();
    const r = await h.call({ command: 'sleep 100 & echo bg=$!' });
    expect(Date.now() - t0).toBeLessThan(scaledMs(1500, { below: 100_000 }));
    expect(r.outcome).toBe('ok');
    const pid = Number(/bg=(\d+)/.exec(h.text(r))![1]);
    process.kill(pid, 'SIGKILL');
  });

  it('a daemon that keeps the pipes open does not hang the call', async () => {
    const h = harness();
    const t0 = Date.now();
    const r = await h.call({ command: '(trap "" HUP; exec sleep 30) & echo daemon=$!; echo done' });
    expect(Date.now() - t0).toBeLessThan(scaledMs(1500, { below: 30_000 }));
    expect(h.text(r)).toContain('done');
    process.kill(Number(/daemon=(\d+)/.exec(h.text(r))![1]), 'SIGKILL');
  });

  it('captures output a background child writes shortly after the shell exits (Pi #5303)', async () => {
    const h = harness();
    // The child writes as soon as the shell is gone (checked every 10 ms), so "late" always comes
    // after the exit and well inside the quiet window, however late a loaded machine wakes a
    // fixed sleep (a 50 ms sleep missed the 100 ms window under CI load).
    const r = await h.call({ command: '(while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo late) & echo early' });
    expect(h.text(r)).toBe('early\nlate\n');
  });

  it('a chatty daemon cannot hold the call open for longer than the cap', async () => {
    const h = harness();
    const t0 = Date.now();
    const r = await h.call({ command: '(while true; do echo tick; sleep 0.02; done) & echo bg=$!' });
    expect(Date.now() - t0).toBeLessThan(scaledMs(4000));
    process.kill(Number(/bg=(\d+)/.exec(h.text(r))![1]), 'SIGKILL');
  });

  it('stdin is closed: cat returns at once', async () => {
    const h = harness();
    const t0 = Date.now();
    const r = await h.call({ command: 'cat; echo after' });
    expect(Date.now() - t0).toBeLessThan(scaledMs(1500));
    expect(h.text(r)).toBe('after\n');
  });

  it('timeout 0 is refused unless allowed', async () => {
    const refused = await harness().call({ command: 'echo hi', timeout: 0 });
    expect(refused.isError).toBe(true);
    expect(harness().text(refused)).toContain('timeout 0 (no limit) is not allowed');
    const h = harness({ allowNoTimeout: true });
    const ok = await h.call({ command: 'echo hi', timeout: 0 });
    expect(h.text(ok)).toBe('hi\n');
  });

  it('rejects an empty command', async () => {
    const r = await harness().call({ command: '' });
    expect(r.outcome).toBe('invalid');
  });
});

describe('bash: output for the model', () => {
  it('strips ANSI escapes and control characters, keeping newlines and tabs', async () => {
    const h = harness();
    const r = await h.call({ command: "printf '\\033[31mred\\033[0m\\tok\\a\\n\\033]0;title\\007bar 10%%\\rbar 100%%\\r\\n'" });
    expect(h.text(r)).toBe('red\tok\nbar 100%\n');
  });

  it('the spill file keeps the raw bytes', async () => {
    const h = harness({}, { limits: { maxLines: 6 } });
    const r = await h.call({ command: "printf '\\033[1mA\\033[0m\\nB\\nC\\n'" });
    const path = (r.details as { fullOutputPath: string }).fullOutputPath;
    expect(readFileSync(path, 'utf8')).toBe('\x1b[1mA\x1b[0m\nB\nC\n');
    expect(h.text(r)).toBe(`B\nC\n\n[Showing lines 2-3 of 3. Full output: ${path}]`);
  });

  it('streams throttled updates with the current tail', async () => {
    const h = harness();
    const started = performance.now();
    const r = await h.call({ command: 'for i in $(seq 1 30); do echo line$i; sleep 0.02; done' });
    const elapsed = performance.now() - started;
    const updates = r.events.filter((e) => e.type === 'tool_execution_update');
    expect(updates.length).toBeGreaterThan(1);
    // At most one per 100 ms, plus the first at once and the last one at the end.
    expect(updates.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
  });

  it('the last update holds what the command printed last, however soon it ended', async () => {
    // Updates come at most every 100 ms: after the first, each waits for its timer, which the
    // command's end overtakes here.
    const h = harness();
    for (const command of ['printf "a\\nb\\n"', 'echo first; sleep 0.05; echo second; echo third >&2', 'seq 1 3000']) {
      const r = await h.call({ command });
      const updates = r.events.filter((e) => e.type === 'tool_execution_update');
      const last = updates.at(-1) as { partial: { content: { text: string }[] } } | undefined;
      expect(last?.partial.content[0]?.text, command).toBe(h.text(r).replace(/\n\n\[Showing[^]*$/, '\n'));
    }
  });

  it('merges stdout and stderr in arrival order', async () => {
    const h = harness();
    const r = await h.call({ command: 'echo 1; sleep 0.02; echo 2 >&2; sleep 0.02; echo 3' });
    expect(h.text(r)).toBe('1\n2\n3\n');
  });
});

describe('bash: environment', () => {
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', MY_API_KEY: 'sk-123', GITHUB_TOKEN: 'ghp', PLAIN: 'visible', MY_SETTING: 's' };

  it('withholds secret-looking variables', async () => {
    const h = harness({}, { env: base });
    const r = await h.call({ command: 'echo "[$MY_API_KEY][$GITHUB_TOKEN][$PLAIN]"' });
    expect(h.text(r)).toBe('[][][visible]\n');
  });

  it('passes a secret when allowed, and deny wins', async () => {
    const h = harness({ env: { allow: ['MY_*', 'GITHUB_TOKEN'], deny: ['GITHUB_*'] } }, { env: base });
    const r = await h.call({ command: 'echo "[$MY_API_KEY][$GITHUB_TOKEN][$MY_SETTING]"' });
    expect(h.text(r)).toBe('[sk-123][][s]\n');
  });

  it('falls back to process.env when ctx.env is empty', async () => {
    process.env.AIRLOCK_BASH_TEST_VAR = 'from-process';
    process.env.AIRLOCK_BASH_TEST_SECRET = 'hidden';
    try {
      const h = harness();
      const r = await h.call({ command: 'echo "[$AIRLOCK_BASH_TEST_VAR][$AIRLOCK_BASH_TEST_SECRET]"' });
      expect(h.text(r)).toBe('[from-process][]\n');
    } finally {
      delete process.env.AIRLOCK_BASH_TEST_VAR;
      delete process.env.AIRLOCK_BASH_TEST_SECRET;
    }
  });

  it('withholds what well-known tools read credentials from, by name and by value (issue 19)', async () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const secrets = {
      MYSQL_PWD: 'hunter2-mysql',
      DOCKER_AUTH_CONFIG: '{"auths":{"r.example.com":{"auth":"dTpw"}}}',
      BUNDLE_GEMS__EXAMPLE__COM: 'user:gem-pass',
      NPM_CONFIG__AUTHTOKEN: 'npm-auth-value',
      NPM_CONFIG__AUTH: 'dXNlcjpwYXNz',
      COMPOSER_AUTH: '{"http-basic":{}}',
      YARN_NPM_AUTH_IDENT: 'user:yarn-pass',
      SERVICE_CREDENTIALS: 'svc-creds-value',
      OP_SESSION_myteam: 'op-session-value',
      BW_SESSION: 'bw-session-value',
      DB_CONNECTION_STRING: 'Server=x;Password=conn-pass',
      CI_JOB_JWT: 'jwt-value-here',
      CELERY_BROKER_URL: 'amqp://worker:broker-pass@mq.example.com/vhost',
      INNOCENT_LOOKING: token,
    };
    const publicVars = { BUNDLE_PATH: 'vendor/bundle', BUNDLE_GEMFILE: 'Gemfile', OLDPWD: '/tmp', DATABASE_HOST: 'db.example.com', SERVICE_URL: 'https://api.example.com/v1' };
    const h = harness({}, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...secrets, ...publicVars } });
    const out = h.text(await h.call({ command: 'env' }));
    for (const [name, value] of Object.entries(secrets)) {
      expect(out, name).not.toContain(`${name}=`);
      expect(out, name).not.toContain(value);
    }
    for (const [name, value] of Object.entries(publicVars)) expect(out, name).toContain(`${name}=${value}`);
    // An explicit allow still passes one through.
    const allowed = harness({ env: { allow: ['MYSQL_PWD'], deny: [] } }, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...secrets } });
    expect(allowed.text(await allowed.call({ command: 'printf %s "$MYSQL_PWD"' }))).toBe('hunter2-mysql');
  });

  it('recognises secret names', () => {
    for (const n of ['OPENAI_API_KEY', 'AWS_REGION', 'NPM_TOKEN', 'DB_PASSWORD', 'SMTP_PASS', 'GOOGLE_APPLICATION_CREDENTIALS', 'APIKEY', 'client_secret']) {
      expect(looksSecret(n), n).toBe(true);
    }
    for (const n of ['MYSQL_PWD', 'DOCKER_AUTH_CONFIG', 'BUNDLE_RUBYGEMS__PKG__GITHUB__COM', 'NPM_CONFIG__AUTHTOKEN', 'AZURE_CREDENTIALS', 'OP_SESSION_x']) {
      expect(looksSecret(n), n).toBe(true);
    }
    for (const n of ['BUNDLE_PATH', 'BUNDLE_JOBS', 'AUTH_DOMAIN', 'GIT_ASKPASS', 'XDG_SESSION_ID']) expect(looksSecret(n), n).toBe(false);
    for (const n of ['PATH', 'HOME', 'PWD', 'OLDPWD', 'LANG', 'TOKENIZERS_PARALLELISM', 'SSH_AUTH_SOCK', 'TERM']) {
      expect(looksSecret(n), n).toBe(false);
    }
  });
});

describe('bash: the extension', () => {
  it('declares an exec resource with the files it touches when the analysis is sure, never replays, runs in parallel', async () => {
    await loadCommandAnalysis();
    const tool = createBashTool();
    expect(tool.replay).toBe('never');
    expect(tool.executionMode ?? 'parallel').toBe('parallel');
    const resources = (command: string, background?: boolean) => tool.resources!({ command, ...(background === undefined ? {} : { background }) }, { cwd: '/w' } as never);
    expect(resources('ls -la')).toEqual([{ kind: 'exec', command: 'ls -la', cwd: '/w', touches: { reads: [], writes: [] } }]);
    expect(resources('grep TODO a.txt > hits.txt')).toEqual([{ kind: 'exec', command: 'grep TODO a.txt > hits.txt', cwd: '/w', touches: { reads: ['a.txt'], writes: ['hits.txt'] } }]);
    // Anything the analysis cannot vouch for: no touches, so the kernel runs it as a barrier.
    for (const unsure of ['python3 x.py', 'cat $F', 'ln -s a b', 'rm a.txt', 'cd d && cat a', 'cat ~/x', 'sed -i s/a/b/ f', 'find . -exec rm {} +', 'cat a &', 'eval "$X"', 'grep x a | xargs rm']) {
      expect(resources(unsure), unsure).toEqual([{ kind: 'exec', command: unsure, cwd: '/w' }]);
    }
    expect(resources('cat a.txt', true)).toEqual([{ kind: 'exec', command: 'cat a.txt', cwd: '/w' }]);
  });

  it('fills option defaults from the schema and registers bash', () => {
    const options = Value.Default(BashOptions, {}) as Parameters<typeof extension.setup>[1];
    expect(options).toEqual({
      defaultTimeoutSeconds: 120,
      allowNoTimeout: false,
      killGraceMs: 1500,
      limits: { fileSizeBytes: 1024 ** 3, processes: 8192, cpuSeconds: 3600 },
      env: { allow: [], deny: [] },
    });
    const tools: string[] = [];
    void extension.setup({ registerTool: (t: { name: string }) => void tools.push(t.name) } as never, options);
    expect(tools).toEqual(['bash', 'bash_jobs']);
  });

  it('sanitize leaves plain text alone', () => {
    const text = 'plain\ttext\nünïcode 😀\n';
    expect(sanitize(text)).toBe(text);
  });
});

describe('bash: big output', () => {
  it('keeps memory bounded for seq 1 2000000, and reports the time against the raw shell', async () => {
    const raw = async (): Promise<number> => {
      const t0 = performance.now();
      await new Promise<void>((resolve) => spawn('bash', ['-c', 'seq 1 2000000 > /dev/null']).on('exit', () => resolve()));
      return performance.now() - t0;
    };
    const h = harness();
    const tool = async (): Promise<number> => {
      const t0 = performance.now();
      const r = await h.call({ command: 'seq 1 2000000' });
      expect(r.outcome).toBe('ok');
      return performance.now() - t0;
    };
    await raw();
    await tool();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const rawTimes: number[] = [];
    const toolTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      rawTimes.push(await raw());
      toolTimes.push(await tool());
    }
    clearInterval(sampler);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const r = await h.call({ command: 'seq 1 2000000' });
    expect(h.text(r).endsWith(`[Showing lines 1998005-2000000 of 2000000. Full output: ${(r.details as { fullOutputPath: string }).fullOutputPath}]`)).toBe(true);
    // eslint-disable-next-line no-console
    console.log(
      `seq 1 2000000: raw ${median(rawTimes).toFixed(1)} ms, tool ${median(toolTimes).toFixed(1)} ms, ratio ${(median(toolTimes) / median(rawTimes)).toFixed(2)}, RSS growth ${((peak - before) / 1e6).toFixed(1)} MB`,
    );
    // ~15 MB of output: the tail and the spill queue must not hold it all.
    expect(peak - before).toBeLessThan(60e6);
  }, scaledMs(60_000));
});

import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { isRoot, runAsNobody, skipUnlessNobodyCanReach } from '../../../lib/tool-common/test/support/as-unprivileged.js';
import { BackgroundJobs, createBashTool, createJobsTool, limitedShellArgs, type JobInfo } from '../src/index.js';
import { gone, running } from './support/processes.js';

/**
 * Issue 19 §5 through the real tool and real processes: nothing outlives its call unless asked
 * for as a background job, and resource limits stop runaway commands with the model told which.
 */

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

function pidIn(text: string, name = 'pid'): number {
  const pid = Number(new RegExp(`${name}=(\\d+)`).exec(text)?.[1]);
  expect(pid).toBeGreaterThan(1);
  started.push(pid);
  return pid;
}

describe('bash: processes a command leaves behind', () => {
  it('`sleep 23 &` is ended when the call ends, and the model is told', async () => {
    const h = createToolHarness(createBashTool({ killGraceMs: 300 }));
    const r = await h.call({ command: 'sleep 23 & echo pid=$!' });
    expect(r.outcome).toBe('ok');
    const pid = pidIn(h.text(r));
    expect(await gone(pid)).toBe(true);
    expect(h.text(r)).toContain('[The command left a process running; ended when it finished. To keep a server or watcher running, call bash with background: true.]');
  });

  it('a daemon that left the group with setsid is ended too, even after its parent exited', async () => {
    const h = createToolHarness(createBashTool({ killGraceMs: 300 }));
    const r = await h.call({ command: "(setsid sh -c 'echo pid=$$; exec sleep 23' > out.txt &); sleep 0.3; cat out.txt", }, {});
    const pid = pidIn(h.text(r));
    expect(await gone(pid)).toBe(true);
  });

  it('a daemon that left the group and holds no pipe is ended after a short command too', async () => {
    // The command ends at once and nothing keeps its pipes open: only the scan at its end finds the daemon.
    const h = createToolHarness(createBashTool({ killGraceMs: 300 }), { cwd: makeTempDir('airlock-bash-daemon-') });
    const r = await h.call({ command: "(setsid sh -c 'echo $$ > pid.txt; exec sleep 23' < /dev/null > /dev/null 2>&1 &); while [ ! -s pid.txt ]; do :; done; echo pid=$(cat pid.txt)" });
    expect(r.outcome).toBe('ok');
    const pid = pidIn(h.text(r));
    expect(await gone(pid)).toBe(true);
    expect(h.text(r)).toContain('[The command left a process running; ended when it finished.');
  });

  it('one that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const h = createToolHarness(createBashTool({ killGraceMs: 300 }));
    const r = await h.call({ command: "sh -c 'trap \"\" TERM; echo pid=$$; exec sleep 23' & sleep 0.2" });
    const pid = pidIn(h.text(r));
    expect(await gone(pid)).toBe(true);
  });

  it('ordinary work is untouched: a build that writes files, its output, exit code 0, no notice', async () => {
    const dir = makeTempDir('airlock-bash-build-');
    const h = createToolHarness(createBashTool(), { cwd: dir });
    const r = await h.call({ command: 'mkdir -p dist && for i in 1 2 3; do (echo "module $i" > dist/m$i.js) & done; wait; seq 1 100000 > dist/big.txt; ls dist' });
    expect(r.outcome).toBe('ok');
    expect(h.text(r)).toBe('big.txt\nm1.js\nm2.js\nm3.js\n');
    expect(readFileSync(join(dir, 'dist/m2.js'), 'utf8')).toBe('module 2\n');
    expect(statSync(join(dir, 'dist/big.txt')).size).toBe(588895);
  });
});

describe('bash: background jobs', () => {
  it('background: true keeps a server running after the call; bash_jobs lists it, stops it, and close ends the rest', async () => {
    const dir = makeTempDir('airlock-bash-jobs-');
    const jobs = new BackgroundJobs();
    const bash = createToolHarness(createBashTool({}, jobs), { cwd: dir });
    const list = createToolHarness(createJobsTool(jobs), { cwd: dir });
    try {
      const first = await bash.call({ command: 'echo pid=$$; echo ready; exec sleep 23', background: true });
      expect(first.outcome).toBe('ok');
      expect(bash.text(first)).toMatch(/^Started background job job-1 \(pid \d+\)\. Its output goes to .*bash-job-1.*\.log/);
      const job = (first.details as { job: JobInfo }).job;
      started.push(job.pid);
      const second = await bash.call({ command: 'sleep 24', background: true });
      const other = (second.details as { job: JobInfo }).job;
      started.push(other.pid);

      // The job writes its output when the machine gets to it: wait for it, however busy the machine is.
      await expect.poll(() => (existsSync(job.outputPath) ? readFileSync(job.outputPath, 'utf8') : ''), { timeout: scaledMs(20_000) }).toBe(`pid=${job.pid}\nready\n`);
      expect(running(job.pid)).toBe(true);
      const listed = list.text(await list.call({}));
      expect(listed).toContain(`job-1 running pid ${job.pid}`);
      expect(listed).toContain(`job-2 running pid ${other.pid}`);

      const stopped = await list.call({ stop: 'job-1' });
      expect(list.text(stopped)).toContain('Stopped job-1 stopped (SIGTERM)');
      expect(await gone(job.pid)).toBe(true);
      expect(running(other.pid)).toBe(true);

      const unknown = await list.call({ stop: 'job-9' });
      expect(unknown.outcome).toBe('error');
      expect(list.text(unknown)).toContain('No background job "job-9". Known jobs: job-1, job-2.');

      // The session closes: what is still running ends with it.
      await jobs.close();
      expect(await gone(other.pid)).toBe(true);
    } finally {
      jobs.killAll();
    }
  });
});

describe('bash: resource limits', () => {
  it('`yes > f` stops at the file size limit and the model is told which limit', async () => {
    const dir = makeTempDir('airlock-bash-fsize-');
    const h = createToolHarness(createBashTool({ limits: { fileSizeBytes: 1024 * 1024, processes: 0, cpuSeconds: 0 } }), { cwd: dir });
    const started = Date.now();
    const r = await h.call({ command: 'yes > f' });
    expect(Date.now() - started).toBeLessThan(scaledMs(5000));
    expect(r.outcome).toBe('error');
    expect(statSync(join(dir, 'f')).size).toBe(1024 * 1024);
    expect(h.text(r)).toContain('[Resource limit reached: the file size limit (RLIMIT_FSIZE: no file may grow past 1 MiB; setting limits.fileSizeBytes).');
  });

  it('the default file size limit is 1 GiB and applies without any setting', () => {
    const args = limitedShellArgs('/usr/bin/bash', 'true', { fileSizeBytes: 1024 ** 3, processes: 8192, cpuSeconds: 3600 });
    expect(args[1]).toContain('airlock_limit -f 1048576 1048576');
    expect(args[1]).toContain('airlock_limit -u 8192 8192');
    expect(args[1]).toContain('airlock_limit -t 3600 3605');
    expect(args.slice(2)).toEqual(['/usr/bin/bash', 'true']);
  });

  it('the command cannot raise the limit it runs under', async () => {
    const dir = makeTempDir('airlock-bash-raise-');
    const h = createToolHarness(createBashTool({ limits: { fileSizeBytes: 1024 * 1024, processes: 0, cpuSeconds: 0 } }), { cwd: dir });
    const r = await h.call({ command: 'ulimit -f unlimited; ulimit -H -f unlimited; head -c 3000000 /dev/zero > f; ulimit -f' });
    expect(statSync(join(dir, 'f')).size).toBe(1024 * 1024);
    expect(h.text(r)).toContain('1024');
  });

  it('a CPU-bound loop stops at the CPU limit and the model is told', async () => {
    const h = createToolHarness(createBashTool({ limits: { fileSizeBytes: 0, processes: 0, cpuSeconds: 1 } }));
    const r = await h.call({ command: 'while :; do :; done' });
    expect(r.outcome).toBe('error');
    expect(h.text(r)).toContain('the CPU time limit (RLIMIT_CPU: 1 s of CPU per process; setting limits.cpuSeconds)');
    expect(h.text(r)).toContain('Command was killed by SIGXCPU');
  }, scaledMs(15_000));

  it('the default limits leave ordinary commands alone', async () => {
    const h = createToolHarness(createBashTool());
    const r = await h.call({ command: 'ulimit -f; ulimit -t; echo done' });
    expect(r.outcome).toBe('ok');
    expect(h.text(r)).toMatch(/^(1048576|\d+)\n(3600|\d+)\ndone\n$/);
  });

  it('whichever shell sets the limits, the command runs in bash -c with them, as bash reports them', async () => {
    const h = createToolHarness(createBashTool({ limits: { fileSizeBytes: 2 * 1024 * 1024, processes: 4000, cpuSeconds: 60 } }));
    const r = await h.call({ command: 'echo "$0 $# ${BASH_VERSION:+bash}"; ulimit -Hf; ulimit -Su; ulimit -St; ulimit -Ht' });
    expect(r.outcome, h.text(r)).toBe('ok');
    expect(h.text(r)).toMatch(/^\S*bash 0 bash\n2048\n4000\n60\n65\n$/);
  });
});

describe('bash: the process limit (as nobody: Linux never applies RLIMIT_NPROC to root)', () => {
  it.skipIf(!isRoot)('a command that forks past the limit is stopped, and the model is told which limit', async () => {
    const dir = makeTempDir('airlock-bash-nproc-');
    chmodSync(dir, 0o777);
    skipUnlessNobodyCanReach(dir);
    const out = await runAsNobody('tool-bash', 'createBashTool', dir, { command: 'for i in $(seq 1 60); do sleep 2 & done; wait' }, {
      factoryArgs: [{ limits: { fileSizeBytes: 0, processes: 20, cpuSeconds: 0 } }],
    });
    expect(out.text).toContain('Resource temporarily unavailable');
    expect(out.text).toContain('the process limit (RLIMIT_NPROC: 20 processes and threads for this user; setting limits.processes)');
  }, scaledMs(30_000));
});

import Type, { type Static } from 'typebox';
import type { AgentTool } from '@airlock/contract';
import type { BackgroundJobs, JobInfo } from './jobs.js';

const Params = Type.Object({
  stop: Type.Optional(Type.String({ minLength: 1, description: 'Id of a job to stop (e.g. "job-1"). Leave out to list the jobs.' })),
});
export type JobsParams = Static<typeof Params>;

/** Longest command shown per job; the whole one is in details. */
const COMMAND_CHARS = 120;

/**
 * `bash_jobs`: lists the background jobs of this session (started with bash `background: true`)
 * or stops one. Small on purpose: what runs, since when, where its output is.
 *
 * @example
 * await tool.execute('1', {}, …)              // "job-1 running pid 4242 since … output: /…/bash-job-1.log: npm run dev"
 * await tool.execute('2', { stop: 'job-1' }, …) // "Stopped job-1 (…)."
 */
export function createJobsTool(jobs: BackgroundJobs): AgentTool<typeof Params, { jobs: JobInfo[] }> {
  return {
    name: 'bash_jobs',
    label: 'Background jobs',
    description:
      'List the background jobs started with bash background: true (id, state, pid, output file), or stop one with stop: "<id>". ' +
      'Read a job\'s output file with the read tool.',
    parameters: Params,
    replay: 'never',
    executionMode: 'sequential',
    resources: () => [],
    async execute(_id, params) {
      if (params.stop !== undefined) {
        const job = await jobs.stop(params.stop);
        return { content: [{ type: 'text', text: `Stopped ${line(job)}` }], details: { jobs: [job] } };
      }
      const all = jobs.list();
      const text = all.length === 0 ? 'No background jobs in this session.' : all.map(line).join('\n');
      return { content: [{ type: 'text', text }], details: { jobs: all } };
    },
  };
}

function line(job: JobInfo): string {
  const command = job.command.length > COMMAND_CHARS ? `${job.command.slice(0, COMMAND_CHARS)}…` : job.command;
  const end = job.state === 'running' ? '' : job.signal ? ` (${job.signal})` : job.exitCode === undefined || job.exitCode === null ? '' : ` (exit code ${job.exitCode})`;
  return `${job.id} ${job.state}${end} pid ${job.pid} since ${job.started} output: ${job.outputPath}: ${JSON.stringify(command)}`;
}

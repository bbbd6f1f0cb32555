import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import Type from 'typebox';
import { createKernel } from '@airlock/kernel';
import { defineTool, type KernelEvent, type ToolCall, type ToolResultMessage } from '@airlock/contract';

/**
 * One scripted model turn through the kernel, offline: the model "emits" a batch of tool calls,
 * a policy votes on each, a redactor scrubs results, an audit observer records every outcome.
 * `runDemo` returns what happened so tests can check it; `main` prints it.
 */

export interface DemoReport {
  messages: ToolResultMessage[];
  audit: string[];
  events: KernelEvent['type'][];
}

export async function runDemo(): Promise<DemoReport> {
  const workspace = await mkdtemp(join(tmpdir(), 'airlock-demo-'));
  try {
    await mkdir(join(workspace, 'notes'));
    await writeFile(join(workspace, 'notes/todo.md'), '- ship the kernel\n- write the docs\n');
    await writeFile(join(workspace, 'notes/deploy.log'), 'deploying with token ghp_abcdefghijklmnopqrstuvwxyz0123456789\ndone\n');
    await writeFile(join(workspace, '.env'), 'API_KEY=sk-live-do-not-leak\n');

    const kernel = createKernel({ cwd: workspace, spill: { dir: join(workspace, '.spill') } });
    kernel.registry.register(readTool(workspace), { source: 'sdk', origin: 'examples/kernel-demo' });
    kernel.registry.register(writeTool(workspace), { source: 'sdk', origin: 'examples/kernel-demo' });

    // A policy: secrets are never read, writes outside notes/ need a person's approval.
    kernel.on(
      'tool_call',
      (call) => {
        for (const r of call.resources) {
          const rel = 'path' in r ? relative(workspace, resolve(workspace, r.path)) : '';
          if (r.kind === 'fs.read' && /(^|\/)\.env/.test(rel)) return { effect: 'deny', reason: `${rel} holds secrets`, rule: 'no-dotenv' };
          if (r.kind === 'fs.write' && !rel.startsWith('notes/')) return { effect: 'ask', reason: `writes ${rel}, outside notes/`, rule: 'notes-only' };
        }
        return { effect: 'allow', rule: 'workspace' };
      },
      { name: 'demo-policy/rules', phase: 'authorize' },
    );
    // A redactor: GitHub tokens never reach the model or the audit log.
    kernel.on(
      'tool_result',
      (result) => ({
        content: result.content.map((c) => (c.type === 'text' ? { ...c, text: c.text.replace(/ghp_[A-Za-z0-9]{36}/g, '[REDACTED:github-token]') } : c)),
      }),
      { name: 'demo-redact/github', phase: 'redact' },
    );
    const audit: string[] = [];
    kernel.on(
      'tool_result',
      (r) => void audit.push(`${r.toolCallId} ${r.toolName} ${r.outcome}${r.decision?.source.kind === 'vote' ? ` (rule ${r.decision.source.rule})` : ''}`),
      { name: 'demo-audit/log', phase: 'observe' },
    );

    const batch: ToolCall[] = [
      { id: 't1', name: 'read', arguments: { path: 'notes/todo.md' } },
      { id: 't2', name: 'read', arguments: { path: '.env' } },
      { id: 't3', name: 'write', arguments: { path: 'notes/done.md', content: '- kernel\n' } },
      { id: 't4', name: 'write', arguments: { path: 'package.json', content: '{}' } },
      { id: 't5', name: 'raed', arguments: { path: 'notes/todo.md' } },
      { id: 't6', name: 'write', arguments: { path: 'notes/x.md' } },
      { id: 't7', name: 'read', arguments: { path: 'notes/deploy.log' } },
    ];
    const events: KernelEvent['type'][] = [];
    const { messages } = await kernel.executeBatch(batch, { onEvent: (e) => void events.push(e.type) });
    await kernel.dispose();
    return { messages, audit, events };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

function readTool(root: string) {
  return defineTool({
    name: 'read',
    label: 'Read',
    description: 'Read a UTF-8 text file from the workspace.',
    parameters: Type.Object({ path: Type.String({ minLength: 1 }) }),
    resources: ({ path }) => [{ kind: 'fs.read', path }],
    async execute(_id, { path }) {
      return { content: [{ type: 'text', text: await readFile(resolve(root, path), 'utf8') }] };
    },
  });
}

function writeTool(root: string) {
  return defineTool({
    name: 'write',
    label: 'Write',
    description: 'Write a UTF-8 text file in the workspace.',
    parameters: Type.Object({ path: Type.String({ minLength: 1 }), content: Type.String() }),
    resources: ({ path }) => [{ kind: 'fs.write', path }],
    async execute(_id, { path, content }, _signal, _update, ctx) {
      const file = resolve(root, path);
      await ctx!.withFileMutation(file, async () => {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, content);
      });
      return { content: [{ type: 'text', text: `Wrote ${Buffer.byteLength(content)} bytes to ${path}.` }] };
    },
  });
}

function preview(message: ToolResultMessage): string {
  const text = message.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join(' ');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 110 ? `${flat.slice(0, 110)}…` : flat;
}

export async function main(): Promise<void> {
  const report = await runDemo();
  console.log('Airlock kernel demo: one model turn of 7 tool calls, a policy, a redactor and an audit log.\n');
  for (const m of report.messages) console.log(`${m.toolCallId}  ${m.toolName.padEnd(6)} ${m.outcome.padEnd(10)} ${preview(m)}`);
  console.log('\naudit log:');
  for (const line of report.audit) console.log(`  ${line}`);
  console.log(`\n${report.events.length} events; every call got exactly one result.`);
}


import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildSystemPrompt, hostRunner } from '@airlock/agent';
import { providerToolName, toProviderTools } from '@airlock/toolkit';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import type { GlobalOptions } from '../src/global-options.js';
import { openSession } from '../src/session.js';
import { testIO } from './test-io.js';

// Each case opens a host that loads the whole default set.
vi.setConfig({ testTimeout: scaledMs(90_000) });

/** The tool names the prompt's "Tools:" section lists, in order. */
function promptToolNames(prompt: string): string[] {
  const section = prompt.split('Tools:\n')[1]!.split('\n\n')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).split(':')[0]!);
}

async function withHost(flags: GlobalOptions, check: (prompt: string, host: Awaited<ReturnType<typeof openSession>>) => void): Promise<void> {
  const base = makeTempDir('airlock-cli-prompt-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const host = await openSession(flags, testIO(project, home));
  try {
    const runner = hostRunner(host);
    for (const provider of ['openai', 'anthropic'] as const) {
      const prompt = buildSystemPrompt({ tools: runner.tools, toolName: (n) => providerToolName(n, provider), cwd: project });
      // Tool for tool, in order: the prompt's lines and the schemas the provider sends.
      const schemas = toProviderTools(runner.tools, provider).map((t) => ('function' in t ? t.function.name : t.name));
      expect(promptToolNames(prompt)).toEqual(schemas);
      // …and the schemas are those of the host's own enabled set.
      expect(toProviderTools(host.selection, provider)).toEqual(toProviderTools(runner.tools, provider));
      check(prompt, host);
    }
  } finally {
    await host.close();
  }
}

describe('the system prompt lists exactly the tools the provider is given', () => {
  it('after --tools and --exclude-tools', async () => {
    await withHost({ tools: 'read,ls,grep,bash', excludeTools: 'bash,grep' }, (prompt, host) => {
      expect(promptToolNames(prompt)).toEqual(['read', 'ls']);
      expect([...host.selection.enabledNames]).toEqual(['read', 'ls']);
      expect(prompt).not.toMatch(/^- (bash|grep|edit|write|find)\b/m);
    });
  });

  it('with the default set, minus one excluded tool', async () => {
    await withHost({ excludeTools: 'write' }, (prompt, host) => {
      const names = promptToolNames(prompt);
      expect(names).not.toContain('write');
      expect(names).toEqual(host.selection.enabled.map((e) => e.tool.name));
      expect(names.length).toBeGreaterThanOrEqual(6);
    });
  });

  it('with --no-tools: the prompt says no tool is enabled and the provider gets none', async () => {
    const base = makeTempDir('airlock-cli-prompt-');
    const host = await openSession({ tools: false }, testIO(base, join(base, 'home')));
    try {
      const runner = hostRunner(host);
      expect(runner.tools).toEqual([]);
      expect(buildSystemPrompt({ tools: runner.tools })).toMatch(/Tools: none are enabled/);
    } finally {
      await host.close();
    }
  });
});

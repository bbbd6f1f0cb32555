import { openHost, type Host } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { type ToolUI } from '@airlock/contract';
import { UsageError, type IO } from './io.js';
import type { GlobalOptions } from './global-options.js';
import { resolve } from 'node:path';

/**
 * Open the host the way the global flags say: settings discovered from --cwd (or --settings),
 * the flags as the CLI settings layer, trust from --trust / --no-trust. Settings and load
 * problems that stop everything become usage errors (exit code 2). `ui` replaces the dialogs the
 * terminal would show (a server asks its client instead). `timeoutMs`: the calls' time limit when
 * the command line sets one (`call --timeout-ms`), for the watchdog.
 */
export async function openSession(g: GlobalOptions, io: IO, ui?: ToolUI, options: { timeoutMs?: number } = {}): Promise<Host> {
  const host = await open(g, io, ui);
  // Each call's time limit, kept even when the main thread is stuck (the real binary only).
  (await io.watchdog?.())?.watch(host, options.timeoutMs ?? host.settings.settings.execution.timeoutMs);
  return host;
}

async function open(g: GlobalOptions, io: IO, ui: ToolUI | undefined): Promise<Host> {
  const cwd = resolve(io.cwd, g.cwd ?? '.');
  try {
    return await openHost({
      cwd,
      ...(g.settings === undefined ? {} : { settingsFile: resolve(io.cwd, g.settings) }),
      flags: {
        ...(typeof g.tools === 'string' ? { tools: splitList(g.tools) } : {}),
        ...(g.tools === false ? { noTools: true } : {}),
        ...(g.excludeTools === undefined ? {} : { excludeTools: splitList(g.excludeTools) }),
        ...(g.builtinTools === false ? { noBuiltinTools: true } : {}),
        ...(g.sequential ? { executionMode: 'sequential' as const } : {}),
        ...(g.maxConcurrency === undefined ? {} : { maxConcurrency: g.maxConcurrency }),
      },
      ...(g.trust === undefined ? {} : { trust: g.trust }),
      interactive: io.isTTY,
      ...(ui === undefined ? {} : { ui }),
      env: io.env,
      // Extensions write these lines, often quoting a tool's or a model's words: each is one line,
      // so none can add a line that reads like Airlock's own.
      log: (line) => void io.stderr.write(`airlock: ${displayText(line, { maxChars: 2000 })}\n`),
      ...(io.bundled === undefined ? {} : { bundled: io.bundled }),
    });
  } catch (error) {
    const e = error as { message?: string; hint?: string };
    throw new UsageError(e.message ?? String(error), e.hint);
  }
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

import type { Content, KernelEvent, ToolResultMessage } from '@airlock/contract';
import { liveOutput } from '../live-output.js';
import { formatContent, formatStatus } from '../format.js';
import { EXIT, type IO } from '../io.js';
import { readJsonArgument } from '../json-input.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { leaveIfStuck } from './stuck.js';
import { reportDiagnostics } from './diagnostics.js';
import { withInterrupt } from './interrupt.js';

export interface CallArgs {
  tool: string;
  args: string | undefined;
  id: string;
  timeoutMs?: number;
}

/** `airlock call <tool> [json-args]`: one call, the full pipeline, the outcome as exit code. */
export async function callCommand(a: CallArgs, g: GlobalOptions, io: IO): Promise<number> {
  const input = await readJsonArgument(a.args, io, 'arguments');
  const host = await openSession(g, io, undefined, a.timeoutMs === undefined ? {} : { timeoutMs: a.timeoutMs });
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    const started = performance.now();
    // A person at a terminal sees a long command's output as it comes (on stderr, so stdout
    // stays the result alone); a program reading a pipe gets only the result.
    const live = !g.json && io.stderrIsTTY === true ? liveOutput((text) => void io.stderr.write(text)) : undefined;
    const onEvent = live === undefined ? undefined : (event: KernelEvent) => {
      if (event.type === 'tool_execution_update' && event.toolCallId === a.id) live.update(textOf(event.partial.content));
    };
    const message: ToolResultMessage = await withInterrupt((signal) =>
      host.execute(
        { id: a.id, name: a.tool, arguments: input },
        { signal, ...(onEvent === undefined ? {} : { onEvent }), ...(a.timeoutMs === undefined ? {} : { timeoutMs: a.timeoutMs }) },
      ),
    );
    if (g.json) io.stdout.write(`${JSON.stringify(message)}\n`);
    else {
      if (live?.end() === true && io.stdoutIsTTY === true) io.stderr.write('── the result, as the model sees it ──\n');
      io.stdout.write(formatContent(message));
      io.stderr.write(formatStatus(message, performance.now() - started));
    }
    return message.outcome === 'ok' ? EXIT.ok : EXIT.outcome;
  } finally {
    await host.close();
    leaveIfStuck(host, io);
  }
}

function textOf(content: readonly Content[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

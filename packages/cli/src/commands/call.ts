import type { ToolResultMessage } from '@airlock/kernel';
import { formatContent, formatStatus } from '../format.js';
import { EXIT, type IO } from '../io.js';
import { readJsonArgument } from '../json-input.js';
import type { GlobalOptions } from '../main.js';
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
  const host = await openSession(g, io);
  try {
    reportDiagnostics(host, io);
    const started = performance.now();
    const message: ToolResultMessage = await withInterrupt((signal) =>
      host.execute({ id: a.id, name: a.tool, arguments: input }, { signal, ...(a.timeoutMs === undefined ? {} : { timeoutMs: a.timeoutMs }) }),
    );
    if (g.json) io.stdout.write(`${JSON.stringify(message)}\n`);
    else {
      io.stdout.write(formatContent(message));
      io.stderr.write(formatStatus(message, performance.now() - started));
    }
    return message.outcome === 'ok' ? EXIT.ok : EXIT.outcome;
  } finally {
    await host.close();
    leaveIfStuck(host, io);
  }
}

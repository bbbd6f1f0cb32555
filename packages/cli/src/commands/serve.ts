import type { Host } from '@airlock/host';
import { createRpcServer } from '@airlock/serve';
import { displayText } from '@airlock/toolkit/display';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { reportDiagnostics } from './diagnostics.js';
import { leaveIfStuck } from './stuck.js';

export interface ServeArgs {
  stdio?: boolean;
  dialogTimeoutMs?: number;
  maxLineBytes?: number;
  /** agent/prompt's default model and provider address. */
  model?: string;
  baseUrl?: string;
}

/**
 * `airlock serve --stdio`: JSON-RPC 2.0 over JSON lines on stdin/stdout, for hosts in any language
 * (docs/rpc.md). Opens the host the way the global flags say, answers until stdin ends, then waits
 * for running requests, closes the host and exits 0. SIGINT/SIGTERM: stop reading and finish what
 * runs; a second one stops the running calls too (they still answer, "aborted").
 */
export async function serveCommand(a: ServeArgs, g: GlobalOptions, io: IO): Promise<number> {
  if (!a.stdio) {
    throw new UsageError('airlock serve needs a transport: --stdio (JSON-RPC 2.0, one JSON object per line on stdin and stdout).', 'Run `airlock serve --stdio`; docs/rpc.md lists the methods.');
  }
  const log = (line: string): void => void io.stderr.write(`airlock: ${displayText(line, { maxChars: 2000 })}\n`);
  // stdout is the protocol: nothing else may write there, and it is written byte for byte.
  const server = createRpcServer({
    input: process.stdin,
    output: process.stdout,
    log,
    ...(a.dialogTimeoutMs === undefined ? {} : { dialogTimeoutMs: a.dialogTimeoutMs }),
    ...(a.maxLineBytes === undefined ? {} : { maxLineBytes: a.maxLineBytes }),
    agent: { env: io.env, ...(a.model === undefined ? {} : { defaultModel: a.model }), ...(a.baseUrl === undefined ? {} : { baseUrl: a.baseUrl }) },
  });
  // Installed before the host opens: a signal then means "serve nothing", not a killed process.
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    server.shutdown({ abort: signals > 1 });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let host: Host | undefined;
  try {
    // Nobody at this terminal answers questions: stdin carries requests. Dialogs go to the client.
    // No watchdog: a request may set its own time limit, which the calls' events do not carry.
    host = await openSession(g, { ...io, isTTY: false, watchdog: undefined }, server.ui);
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    await server.serve(host);
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Stopped by a signal with stdin still open: let go of it, or the process would wait for it.
    process.stdin.destroy();
    if (host !== undefined) {
      await host.close();
      leaveIfStuck(host, io);
    }
  }
}

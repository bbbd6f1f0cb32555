import { createElicitationUI, createMcpServer, LineTransport, type LineOutput } from '@airlock/serve';
import { displayText } from '@airlock/toolkit/display';
import { EXIT, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { reportDiagnostics } from './diagnostics.js';
import { leaveIfStuck } from './stuck.js';

/**
 * `airlock mcp`: an MCP server on stdin/stdout for the client that started it. Ends (exit 0) when
 * the client closes stdin, or on SIGTERM/SIGINT; calls still running are aborted, then the host
 * closes (background jobs, each extension's dispose). Approval prompts go to the client as
 * elicitations when it supports them; nobody is asked on a terminal (stdin carries the protocol).
 */
export async function mcpCommand(g: GlobalOptions, io: IO): Promise<number> {
  const protocol = claimStdout();
  const log = (line: string): void => void io.stderr.write(`airlock: ${displayText(line, { maxChars: 2000 })}\n`);
  try {
    const ui = createElicitationUI({ log });
    // Not interactive: the trust question cannot be asked before a client is connected.
    const host = await openSession(g, { ...io, isTTY: false }, ui);
    try {
      reportDiagnostics(host, io, { verbose: g.verbose === true });
      const mcp = createMcpServer(host, { ui, log });
      const transport = new LineTransport(process.stdin, protocol);
      const closed = new Promise<void>((resolve) => (mcp.server.onclose = resolve));
      const stop = (): void => void mcp.close();
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      try {
        await mcp.connect(transport);
        await closed;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
      return EXIT.ok;
    } finally {
      await host.close();
      leaveIfStuck(host, io);
    }
  } finally {
    protocol.release();
  }
}

/**
 * stdout is the protocol channel: a stray write to it (an extension's console.log) would break
 * the client's parser. Everything written to process.stdout goes to stderr while the server runs;
 * only the returned output reaches the real stdout.
 */
function claimStdout(): LineOutput & { release(): void } {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  stdout.write = ((chunk: never, ...rest: never[]) => process.stderr.write(chunk, ...rest)) as typeof stdout.write;
  return {
    write: (text) => write(text),
    once: (event, listener) => stdout.once(event, listener),
    release: () => {
      stdout.write = write;
    },
  };
}

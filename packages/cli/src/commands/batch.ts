import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { displayText } from '@airlock/toolkit/display';
import { type KernelEvent, type ToolCall } from '@airlock/contract';
import { schemaProblemLines } from '@airlock/toolkit/util';
import Type from 'typebox';
import { formatBatchSummary, formatContent, formatResultHeader } from '../format.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { leaveIfStuck } from './stuck.js';
import { reportDiagnostics } from './diagnostics.js';
import { withInterrupt } from './interrupt.js';

export interface BatchArgs {
  file: string;
  events?: boolean;
}

/** A batch file: the calls of one assistant message. `arguments` are the tool's to check, in stage 3. */
const BatchFile = Type.Array(
  Type.Object({
    id: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1 }),
    arguments: Type.Optional(Type.Unknown()),
  }),
);

/**
 * `airlock batch <file|->`: the calls of one assistant message, as the kernel runs them.
 * --events streams every event as a JSON line, then every result message; --json prints the
 * results as one JSON array; otherwise each result's content under a header naming its call, in
 * source order, and a count of the outcomes on stderr.
 */
export async function batchCommand(a: BatchArgs, g: GlobalOptions, io: IO): Promise<number> {
  const calls = await readCalls(a.file, io);
  const host = await openSession(g, io);
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    const line = (value: unknown): void => void io.stdout.write(`${JSON.stringify(value)}\n`);
    const started = performance.now();
    const { messages } = await withInterrupt((signal) =>
      host.batch(calls, { signal, ...(a.events ? { onEvent: (event: KernelEvent) => line(event) } : {}) }),
    );
    if (a.events) for (const m of messages) line(m);
    else if (g.json) line(messages);
    else {
      // Each result under a header naming its call, a blank line between two; the counts close.
      messages.forEach((m, i) => io.stdout.write(`${i === 0 ? '' : '\n'}${formatResultHeader(m, i, messages.length)}${formatContent(m)}`));
      io.stderr.write(formatBatchSummary(messages, performance.now() - started));
    }
    return messages.every((m) => m.outcome === 'ok') ? EXIT.ok : EXIT.outcome;
  } finally {
    await host.close();
    leaveIfStuck(host, io);
  }
}

async function readCalls(file: string, io: IO): Promise<ToolCall[]> {
  // Quoted in errors: the file's name and the parser's words on one line each, escaped.
  const where = file === '-' ? 'standard input' : displayText(file, { maxChars: 300 });
  const why = (error: unknown): string => displayText((error as Error).message ?? String(error), { maxChars: 500 });
  let text: string;
  try {
    text = file === '-' ? await io.readStdin() : await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the batch file ${where}: ${why(error)}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The batch in ${where} is not valid JSON: ${why(error)}.`);
  }
  if (!Array.isArray(value)) {
    throw new UsageError(`The batch in ${where} must be a JSON array of {id?, name, arguments}.`, 'Example: [{"name": "read", "arguments": {"path": "README.md"}}]');
  }
  // The one schema wording (`[1].name: expected a non-empty string, got 5`), as for tool arguments.
  const problems = schemaProblemLines(BatchFile, value);
  if (problems.length > 0) throw new UsageError(`The batch in ${where} has ${problems.length === 1 ? 'a problem' : 'problems'}: ${problems.map((p) => displayText(p, { maxChars: 300 })).join('; ')}.`);
  const calls = (value as { id?: string; name: string; arguments?: unknown }[]).map(
    (call, i): ToolCall => ({ id: call.id ?? `call_${i + 1}`, name: call.name, arguments: call.arguments ?? {} }),
  );
  return calls;
}

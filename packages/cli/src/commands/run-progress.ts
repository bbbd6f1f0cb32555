import type { AgentEvent } from '@airlock/agent';
import type { Content } from '@airlock/contract';
import { formatStatus } from '../format.js';
import type { IO } from '../io.js';
import { liveOutput } from '../live-output.js';

/** `--json`: every event as one JSON line, deltas without the growing message copy they point to. */
export function jsonLines(io: IO): (event: AgentEvent) => void {
  return (event) => {
    const line = event.type === 'message_update' ? { ...event, message: undefined, delta: { ...event.delta, message: undefined } } : event;
    io.stdout.write(`${JSON.stringify(line)}\n`);
  };
}

/**
 * For a person: each call's outcome as it ends, and a running command's output when `live` is
 * on (a terminal watches). `write` is where the lines go (stderr in print mode; above the prompt
 * line in interactive mode).
 */
export function progress(write: (text: string) => void, live: boolean): (event: AgentEvent) => void {
  const running = new Map<string, ReturnType<typeof liveOutput>>();
  return (event) => {
    if (event.type === 'tool_execution_update' && live) {
      let out = running.get(event.toolCallId);
      if (out === undefined) running.set(event.toolCallId, (out = liveOutput(write)));
      out.update(contentText(event.partial.content));
    } else if (event.type === 'tool_execution_end') {
      running.get(event.toolCallId)?.end();
      running.delete(event.toolCallId);
      write(formatStatus(event.result));
    }
  };
}

function contentText(content: readonly Content[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

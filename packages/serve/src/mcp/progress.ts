/**
 * Progress notifications for a running call: the kernel's `tool_execution_update` events (bash's
 * output so far, already through the redact phase) as MCP `notifications/progress`.
 *
 * Throttled: at most one notification per `intervalMs`, carrying the newest output; an update that
 * arrives while the previous notification is still being written (a slow reader) replaces the
 * waiting one instead of queueing behind it, so a chatty command never fills memory. Nothing is
 * sent once the call has finished (the spec allows progress only for requests still running).
 */
import type { Content } from '@airlock/contract';

export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message: string };
}

export interface ProgressOptions {
  /** Least time between two notifications, in ms. Default 250. */
  intervalMs?: number;
  /** The message carries at most this many characters of the newest output (its end). Default 2000. */
  maxChars?: number;
}

export interface ProgressReporter {
  /** A partial result of the call (the whole output so far, or its tail). */
  update(content: readonly Content[]): void;
  /** The call is over: drop anything not yet sent and send nothing more. */
  finish(): void;
}

/**
 * @example
 * const progress = progressReporter(token, (n) => extra.sendNotification(n));
 * await host.execute(call, { onEvent: (e) => e.type === 'tool_execution_update' && progress.update(e.partial.content) });
 * progress.finish();
 */
export function progressReporter(
  progressToken: string | number,
  send: (notification: ProgressNotification) => Promise<void>,
  options: ProgressOptions = {},
): ProgressReporter {
  const intervalMs = options.intervalMs ?? 250;
  const maxChars = options.maxChars ?? 2000;
  let progress = 0;
  let pending: string | undefined;
  let lastSent = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing = false;
  let finished = false;

  const flush = (): void => {
    timer = undefined;
    if (finished || writing || pending === undefined) return;
    const message = pending;
    pending = undefined;
    writing = true;
    lastSent = Date.now();
    progress += 1; // must grow with every notification (spec)
    void send({ method: 'notifications/progress', params: { progressToken, progress, message } })
      .catch(() => {}) // a closed connection: the call's own result will fail to send too, and say so
      .finally(() => {
        writing = false;
        schedule();
      });
  };
  const schedule = (): void => {
    if (finished || writing || timer !== undefined || pending === undefined) return;
    timer = setTimeout(flush, Math.max(0, lastSent + intervalMs - Date.now()));
  };

  return {
    update(content) {
      if (finished) return;
      const text = content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      pending = text.length > maxChars ? `…${text.slice(text.length - maxChars)}` : text;
      schedule();
    },
    finish() {
      finished = true;
      pending = undefined;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

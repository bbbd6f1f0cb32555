import { whenOutputClosed } from '../io.js';

/**
 * Run `work` with a signal that Ctrl-C (SIGINT), SIGTERM or the output's reader going away
 * (`| head`) aborts, so an interrupted call still ends with a result message ("aborted") and its
 * audit records instead of a killed process and a half-written file. A second Ctrl-C leaves at once.
 */
export async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let interrupted = false;
  const onSignal = (): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Not a second Ctrl-C: a reader that left is never a reason to leave without the records.
  const unwatch = whenOutputClosed(() => controller.abort(new Error('the output was closed')));
  try {
    return await work(controller.signal);
  } finally {
    unwatch();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

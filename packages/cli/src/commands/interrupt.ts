/**
 * Run `work` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts, so an interrupted call still
 * ends with a result message ("aborted") instead of a killed process and a half-written file.
 * A second Ctrl-C leaves at once.
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
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

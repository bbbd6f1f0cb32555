import type { SpillWriter, TailAccumulator, ToolContext, TruncationLimits, TruncationResult } from '@airlock/contract';

/** What a command's output came to: the tail for the model, and the spill file when it was cut. */
export interface RunOutputResult {
  tail: TruncationResult;
  /** Raw size of the last line (for the partial-line notice). */
  lastLineBytes: number;
  fullOutputPath?: string;
  fullOutputCapped?: boolean;
}

/**
 * The output of one command, stdout and stderr merged: a rolling tail within the model's limits,
 * the whole output in a spill file once it no longer fits, and live updates for whoever watches.
 * The spill is opened lazily: the first chunks (at most about the byte limit) are held until the
 * output is too big for the model, so small outputs never touch the disk.
 *
 * @example
 * const out = new RunOutput(ctx, limits, { onTail, updateIntervalMs: 100 });
 * child.stdout.on('data', (c) => out.push(c));
 * const { tail, fullOutputPath } = await out.close();
 */
export class RunOutput {
  /** Chunks read so far: a decision confirmed after a poll compares it with the count it saw. */
  chunks = 0;
  readonly #ctx: ToolContext;
  readonly #limits: TruncationLimits;
  readonly #tail: TailAccumulator;
  readonly #onTail: ((tail: TruncationResult, fullOutputPath: string | undefined) => void) | undefined;
  readonly #updateIntervalMs: number;
  #spill: SpillWriter | undefined;
  #pending: Uint8Array[] | undefined = [];
  #updateTimer: NodeJS.Timeout | undefined;
  #lastUpdate = 0;
  #closed = false;

  constructor(ctx: ToolContext, limits: TruncationLimits, o: { onTail?: (tail: TruncationResult, fullOutputPath: string | undefined) => void; updateIntervalMs: number }) {
    this.#ctx = ctx;
    this.#limits = limits;
    this.#tail = ctx.truncate.stream(limits);
    this.#onTail = o.onTail;
    this.#updateIntervalMs = o.updateIntervalMs;
  }

  push(chunk: Uint8Array): void {
    this.chunks++;
    this.#tail.push(chunk);
    if (this.#spill !== undefined) this.#spill.write(chunk);
    else {
      this.#pending!.push(chunk);
      if (this.#tail.totalBytes > this.#limits.maxBytes || this.#tail.totalLines > this.#limits.maxLines) this.#openSpill();
    }
    this.#scheduleUpdate();
  }

  /**
   * Show output that came after the last update now, then stop updating: whoever watches sees
   * every line the command printed, however soon it ended (an update waits for its timer).
   */
  flushUpdates(): void {
    if (this.#updateTimer !== undefined) {
      clearTimeout(this.#updateTimer);
      this.#emitUpdate();
    }
    this.#closed = true;
  }

  /** Stop updating without showing what is pending (the call is over or failed to start). */
  stopUpdates(): void {
    this.#closed = true;
    if (this.#updateTimer !== undefined) clearTimeout(this.#updateTimer);
    this.#updateTimer = undefined;
  }

  /** The tail, and the spill file kept when the tail was cut (removed when it was not). */
  async close(): Promise<RunOutputResult> {
    this.stopUpdates();
    const tail = this.#tail.end();
    let fullOutputPath: string | undefined;
    let fullOutputCapped: boolean | undefined;
    try {
      if (tail.truncated) {
        if (this.#spill === undefined) this.#openSpill();
        const info = await this.#spill!.close();
        fullOutputPath = info.path;
        if (info.capped) fullOutputCapped = true;
      } else if (this.#spill !== undefined) {
        await this.#spill.discard();
      }
    } catch (error) {
      this.#ctx.log.warn(`bash: could not save the full output: ${(error as Error).message}`);
      fullOutputPath = undefined;
    }
    this.#pending = undefined;
    return { tail, lastLineBytes: this.#tail.lastLineBytes, ...(fullOutputPath === undefined ? {} : { fullOutputPath }), ...(fullOutputCapped === undefined ? {} : { fullOutputCapped }) };
  }

  /** The command never ran: nothing is kept. */
  discard(): void {
    this.stopUpdates();
    void this.#spill?.discard().catch(() => undefined);
  }

  #openSpill(): void {
    this.#spill = this.#ctx.openSpill({ name: 'bash', ext: 'log' });
    for (const chunk of this.#pending ?? []) this.#spill.write(chunk);
    this.#pending = undefined;
  }

  #emitUpdate(): void {
    this.#updateTimer = undefined;
    if (this.#closed || this.#onTail === undefined) return;
    this.#lastUpdate = Date.now();
    this.#onTail(this.#tail.snapshot(), this.#spill?.path);
  }

  #scheduleUpdate(): void {
    if (this.#onTail === undefined || this.#updateTimer !== undefined || this.#closed) return;
    this.#updateTimer = setTimeout(() => this.#emitUpdate(), Math.max(0, this.#lastUpdate + this.#updateIntervalMs - Date.now()));
  }
}

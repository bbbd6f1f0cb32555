/** What selectLines reads through: a FileHandle, or a descriptor wrapped to look like one. */
export interface PositionalReader {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/**
 * Streaming line selection: reads a file in chunks and keeps only the lines it returns, so the
 * cost of a head read is what it keeps, and a read near the end holds one chunk at a time.
 *
 * Line model (the kernel's): a line owns its "\n"; the last line may have none. "" has 0 lines,
 * "a\n" has 1, "a\n\n" has 2. Sizes are UTF-8 bytes of the decoded text (invalid bytes decode to
 * U+FFFD, 3 bytes each), so the byte limit holds for what the model sees.
 */

export interface LineSelectOptions {
  /** 1-based first line. */
  offset: number;
  /** Lines the caller asked for at most (undefined: no caller limit). */
  limit: number | undefined;
  maxLines: number;
  maxBytes: number;
  /**
   * After the selection, count the remaining lines only when at most this many bytes are left;
   * beyond it the total is reported as unknown (a head read of a huge file stays O(kept)).
   */
  countBudget: number;
  /** File size from fstat, to decide on counting up front. */
  size: number;
  signal?: AbortSignal | undefined;
  /** Chunk sizes (tests use tiny ones to cross chunk boundaries). Default 64 KiB keeping, 1 MiB scanning. */
  chunkBytes?: { keep: number; scan: number };
}

export interface Selection {
  /** The kept lines, decoded, each with its "\n" (the last may have none). */
  text: string;
  outputLines: number;
  outputBytes: number;
  /** Why the selection stopped before the end of the file, or null when it reached the end. */
  stoppedBy: 'limit' | 'lines' | 'bytes' | 'first-line-too-long' | null;
  /** UTF-8 size (raw bytes) of the first selected line, when it alone is over maxBytes. */
  firstLineBytes?: number;
  /** Lines in the file; undefined when the rest was too large to count. */
  totalLines: number | undefined;
  /** The selection started past the last line. */
  offsetBeyondEnd: boolean;
  /** Bytes read from the file (for tests and benchmarks: a head read stays small). */
  bytesRead: number;
}

type Phase = 'skip' | 'keep' | 'oversize' | 'count' | 'stop';

const KEEP_CHUNK = 64 * 1024;
const SCAN_CHUNK = 1024 * 1024;
const NL = 0x0a;

export class AbortError extends Error {
  constructor() {
    super('Operation aborted');
    this.name = 'AbortError';
  }
}

/**
 * Select lines [offset, offset + min(limit, maxLines)) within maxBytes from an open file.
 *
 * @example const sel = await selectLines(fh, { offset: 1, limit: undefined, maxLines: 2000, maxBytes: 51200, countBudget: 1 << 24, size });
 */
export async function selectLines(fh: PositionalReader, o: LineSelectOptions): Promise<Selection> {
  const want = Math.min(o.limit ?? Number.POSITIVE_INFINITY, o.maxLines);
  let phase: Phase = o.offset === 1 ? 'keep' : 'skip';
  let newlines = 0; // "\n" seen so far
  let pending = false; // bytes after the last "\n" seen
  let position = 0;
  let bytesRead = 0;
  // Decoded runs of kept lines (one string per run, not per line).
  const kept: string[] = [];
  let keptLines = 0;
  let keptBytes = 0;
  let cur: Buffer[] = [];
  let curRaw = 0;
  let firstLineBytes: number | undefined;
  let stoppedBy: Selection['stoppedBy'] = null;
  let small: Buffer | undefined;
  let large: Buffer | undefined;

  const endKeeping = (why: NonNullable<Selection['stoppedBy']>, at: number): 'count' | 'stop' | 'oversize' => {
    stoppedBy = why;
    if (why === 'first-line-too-long') return 'oversize';
    // At a line boundary or inside a line whose bytes we stop keeping: count the rest if cheap.
    return o.size - at <= o.countBudget ? 'count' : 'stop';
  };

  const keepLine = (line: string): boolean => {
    const bytes = Buffer.byteLength(line);
    if (keptBytes + bytes > o.maxBytes) return false;
    kept.push(line);
    keptLines++;
    keptBytes += bytes;
    return true;
  };

  /**
   * The common case in one step: the complete lines from `pos` that fit the line and byte
   * budgets, decoded with one toString. Valid UTF-8 decodes to exactly its raw size; when the
   * sizes differ (invalid bytes become U+FFFD) the lines go one by one instead. Returns the
   * new position (`pos` when nothing was taken).
   */
  const keepRun = (buf: Buffer, pos: number, n: number): number => {
    const room = want - keptLines;
    const budget = o.maxBytes - keptBytes;
    let end = pos;
    let lines = 0;
    while (lines < room) {
      const idx = buf.indexOf(NL, end);
      if (idx === -1 || idx >= n || idx + 1 - pos > budget) break;
      end = idx + 1;
      lines++;
    }
    if (lines === 0) return pos;
    const text = buf.toString('utf8', pos, end);
    if (Buffer.byteLength(text) !== end - pos) return pos;
    kept.push(text);
    keptLines += lines;
    keptBytes += end - pos;
    newlines += lines;
    pending = false;
    return end;
  };

  outer: for (;;) {
    if (o.signal?.aborted) throw new AbortError();
    const buf: Buffer =
      phase === 'keep'
        ? (small ??= Buffer.allocUnsafe(o.chunkBytes?.keep ?? KEEP_CHUNK))
        : (large ??= Buffer.allocUnsafe(o.chunkBytes?.scan ?? SCAN_CHUNK));
    const { bytesRead: n }: { bytesRead: number } = await fh.read(buf, 0, buf.length, position);
    if (n === 0) break;
    position += n;
    bytesRead += n;
    let pos = 0;
    while (pos < n) {
      switch (phase) {
        case 'skip': {
          const idx = buf.indexOf(NL, pos);
          if (idx === -1 || idx >= n) {
            pending = true;
            pos = n;
            break;
          }
          newlines++;
          pending = false;
          pos = idx + 1;
          if (newlines + 1 === o.offset) phase = 'keep';
          break;
        }
        case 'keep': {
          if (cur.length === 0) {
            const next = keepRun(buf, pos, n);
            if (next !== pos) {
              pos = next;
              if (keptLines === want) {
                phase = endKeeping(keptLines === o.limit ? 'limit' : 'lines', position - n + pos);
                if (phase === 'stop') break outer;
              }
              continue;
            }
          }
          const idx = buf.indexOf(NL, pos);
          const complete = idx !== -1 && idx < n;
          const end = complete ? idx + 1 : n;
          const seg = buf.subarray(pos, end);
          pending = true;
          // Decoded UTF-8 is never shorter than the raw bytes, so raw bytes over budget cannot fit.
          if (keptBytes + curRaw + seg.length > o.maxBytes) {
            if (keptLines === 0) {
              firstLineBytes = curRaw;
              phase = endKeeping('first-line-too-long', position - n + pos);
            } else {
              phase = endKeeping('bytes', position - n + pos);
            }
            cur = [];
            if (phase === 'stop') break outer;
            continue; // the next phase handles this segment
          }
          cur.push(Buffer.from(seg));
          curRaw += seg.length;
          pos = end;
          if (!complete) break;
          newlines++;
          pending = false;
          const line = cur.length === 1 ? (cur[0] as Buffer).toString('utf8') : Buffer.concat(cur).toString('utf8');
          const raw = curRaw;
          cur = [];
          curRaw = 0;
          if (!keepLine(line)) {
            if (keptLines === 0) {
              firstLineBytes = raw;
              stoppedBy = 'first-line-too-long';
            } else stoppedBy = 'bytes';
            phase = o.size - (position - n + pos) <= o.countBudget ? 'count' : 'stop';
            // This line was scanned to its end but not kept: it is counted, not re-read.
            if (phase === 'stop') break outer;
            break;
          }
          if (keptLines === want) {
            phase = endKeeping(keptLines === o.limit ? 'limit' : 'lines', position - n + pos);
            if (phase === 'stop') break outer;
          }
          break;
        }
        case 'oversize': {
          const idx = buf.indexOf(NL, pos);
          if (idx === -1 || idx >= n) {
            firstLineBytes = (firstLineBytes ?? 0) + (n - pos);
            pending = true;
            pos = n;
            break;
          }
          firstLineBytes = (firstLineBytes ?? 0) + (idx + 1 - pos);
          newlines++;
          pending = false;
          pos = idx + 1;
          phase = o.size - (position - n + pos) <= o.countBudget ? 'count' : 'stop';
          if (phase === 'stop') break outer;
          break;
        }
        case 'count': {
          let idx = buf.indexOf(NL, pos);
          while (idx !== -1 && idx < n) {
            newlines++;
            pos = idx + 1;
            idx = buf.indexOf(NL, pos);
          }
          pending = pos < n;
          pos = n;
          break;
        }
        default:
          break outer;
      }
    }
  }

  if (cur.length > 0 && phase === 'keep') {
    // The last line has no "\n".
    const line = Buffer.concat(cur).toString('utf8');
    if (!keepLine(line)) {
      if (keptLines === 0) {
        firstLineBytes = curRaw;
        stoppedBy = 'first-line-too-long';
      } else stoppedBy = 'bytes';
    }
  }

  const counted = (phase as Phase) !== 'stop';
  const totalLines = counted ? newlines + (pending ? 1 : 0) : undefined;
  const offsetBeyondEnd = totalLines !== undefined && o.offset > Math.max(totalLines, 1);
  const text = kept.join('');
  // Stopped exactly at the end of the file: that is no truncation.
  if (totalLines !== undefined && stoppedBy !== null && stoppedBy !== 'first-line-too-long' && o.offset - 1 + keptLines >= totalLines) {
    stoppedBy = null;
  }
  const result: Selection = { text, outputLines: keptLines, outputBytes: keptBytes, stoppedBy, totalLines, offsetBeyondEnd, bytesRead };
  if (firstLineBytes !== undefined) result.firstLineBytes = firstLineBytes;
  return result;
}

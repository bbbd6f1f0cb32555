import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errnoCode } from '@airlock/toolkit/util';
import { descriptorPath, READ_NONBLOCKING } from '@airlock/tool-common';

/** Kept between files; most source files fit, so a search allocates almost nothing per file. */
const INITIAL_BYTES = 64 * 1024;
/** A buffer grown past this for one big file is dropped afterwards rather than kept for the process. */
const KEEP_BYTES = 4 * 1024 * 1024;

/**
 * Reads whole files synchronously into one reused buffer: open, read until end of file, close.
 * fs/promises' readFile costs four thread-pool round trips and a FileHandle per file (open, fstat,
 * read, close) and a fresh buffer; for a tree of small files those dominated the search. Callers
 * hand the event loop back between files (the walk does); a file is read in one go, as rg does.
 */
export class WholeFileReader {
  private buffer = Buffer.allocUnsafe(INITIAL_BYTES);

  /**
   * The file's bytes, valid only until the next call (they live in the shared buffer), or the
   * errno code when it cannot be read (vanished, permission denied): the caller skips it, as rg
   * does, and reports it, as rg does.
   */
  read(path: string, expected?: string): Buffer | string {
    if (this.buffer.length > KEEP_BYTES) this.buffer = Buffer.allocUnsafe(INITIAL_BYTES);
    let fd: number;
    try {
      // The walk yields regular files only, judged as such: a file swapped for a symlink since
      // (to a secret the read rules would refuse) fails to open (ELOOP) instead of being followed.
      // Non-blocking, and checked below: one swapped for a FIFO or a device must not hang the search.
      fd = openSync(path, READ_NONBLOCKING | constants.O_NOFOLLOW);
    } catch (error) {
      return errnoCode(error) ?? 'EIO';
    }
    try {
      if (!fstatSync(fd).isFile()) return 'ENOTREGULAR';
      // A folder on the way swapped for a link since the walk listed it is followed by open;
      // where the kernel names descriptors (Linux), the file opened must be the one walked.
      if (expected !== undefined) {
        const named = descriptorPath(fd);
        if (named !== undefined && named !== expected) return 'ECHANGED';
      }
      let length = 0;
      for (;;) {
        if (length === this.buffer.length) this.grow(length);
        const n = readSync(fd, this.buffer, length, this.buffer.length - length, null);
        if (n === 0) return this.buffer.subarray(0, length);
        length += n;
      }
    } catch (error) {
      return errnoCode(error) ?? 'EIO';
    } finally {
      closeSync(fd);
    }
  }

  private grow(used: number): void {
    const next = Buffer.allocUnsafe(this.buffer.length * 2);
    this.buffer.copy(next, 0, 0, used);
    this.buffer = next;
  }
}

import { fstatSync, read, readSync, type Stats } from 'node:fs';
import { promisify } from 'node:util';

const readAsync = promisify(read);

/**
 * Files up to this size are read with synchronous calls: the thread-pool round trips cost more
 * than reading 256 KiB, and a small edit is the common case. Bigger files are read
 * asynchronously, so a 10 MB edit does not hold the event loop.
 */
const SYNC_LIMIT = 256 * 1024;

/**
 * A file's bytes through a descriptor already opened (and confirmed to be the judged file by
 * tool-common's openJudgedFile), usually in one read. `stats` are its fstat; the caller has
 * refused what edit must not touch before any byte is read.
 */
export async function readWhole(fd: number, stats: Stats = fstatSync(fd)): Promise<Buffer> {
  const small = stats.size <= SYNC_LIMIT;
  // One byte more than the size, so the file growing meanwhile shows (and is read) instead of being cut off.
  let buffer = Buffer.allocUnsafe(stats.size + 1);
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const wanted = buffer.length - filled;
    const bytesRead = small ? readSync(fd, buffer, filled, wanted, filled) : (await readAsync(fd, buffer, filled, wanted, filled)).bytesRead;
    filled += bytesRead;
    // A short read that ends exactly at the size fstat gave is the end of the file: no extra
    // read just to see 0. Anything else (a file system that returns short reads mid-file, a
    // file that shrank or grew) reads on until a read returns nothing.
    if (bytesRead === 0 || (bytesRead < wanted && filled === stats.size)) break;
  }
  return buffer.subarray(0, filled);
}

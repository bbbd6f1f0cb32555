import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * A file's stats and bytes through one handle: one open, one fstat and (usually) one read,
 * instead of stat + readFile (which opens the file again and reads it in 512 KiB slices).
 * `check` sees the stats before any byte is read and throws to refuse the file.
 *
 * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; on a
 * regular file the flag changes nothing.
 */
export async function readWhole(path: string, check: (stats: Stats) => void): Promise<{ stats: Stats; bytes: Buffer }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    check(stats);
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
      const { bytesRead } = await handle.read(buffer, filled, wanted, filled);
      filled += bytesRead;
      // A short read that ends exactly at the size fstat gave is the end of the file: no extra
      // read just to see 0. Anything else (a file system that returns short reads mid-file, a
      // file that shrank or grew) reads on until a read returns nothing.
      if (bytesRead === 0 || (bytesRead < wanted && filled === stats.size)) break;
    }
    return { stats, bytes: buffer.subarray(0, filled) };
  } finally {
    await handle.close();
  }
}

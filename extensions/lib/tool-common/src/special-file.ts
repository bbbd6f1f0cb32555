import { constants, type Stats } from 'node:fs';

/**
 * Files that are not regular files (named pipes, sockets, devices) and how in-process tools stay
 * clear of them.
 *
 * Why: opening a FIFO for reading waits for a writer, and Node runs that open on a libuv thread
 * that nothing can cancel: the call's time limit fires, but the thread stays blocked and the
 * process can never exit. Reading a device like /dev/zero never reaches end of file. So a tool
 * opens with O_NONBLOCK (a FIFO open then returns at once), checks what it opened with fstat, and
 * refuses anything but a regular file before it reads a byte. O_NOCTTY keeps a terminal device
 * from becoming the process's controlling terminal.
 */

/**
 * Flags for opening a file to read it without ever blocking on the open.
 *
 * @example
 * const fh = await open(path, READ_NONBLOCKING);
 * const stats = await fh.stat();
 * if (!stats.isFile()) throw notRegularFileError('f', stats, 'the read tool reads regular files only');
 */
export const READ_NONBLOCKING = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** What a non-regular file is, in words: "a named pipe (FIFO)", "a character device", … */
export function specialFileKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * The error for a tool asked to read or change a path that is not a regular file.
 *
 * @example
 * notRegularFileError('pipe', stats, 'the read tool reads regular files only').message
 * // 'pipe is a named pipe (FIFO), not a regular file; the read tool reads regular files only. …'
 */
export function notRegularFileError(shown: string, stats: Stats, what: string): Error {
  const kind = specialFileKind(stats);
  return new Error(
    `${shown} is ${kind}, not a regular file; ${what}. Reading it could wait forever or never end. ` +
      'If you really need it, use bash with a time limit (e.g. `timeout 5 head -c 4096 <path>`).',
  );
}

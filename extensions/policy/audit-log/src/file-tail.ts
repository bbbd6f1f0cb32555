import type { FileHandle } from 'node:fs/promises';

/** The end of a log file: its last complete line, and any bytes after it (a torn write). */
export interface FileTail {
  size: number;
  /** The last line that ends with a newline, without the newline. */
  lastLine: Buffer | undefined;
  /** Bytes after the last newline: a write a crash (or a truncation) cut short. */
  fragment: Buffer | undefined;
}

const CHUNK = 64 * 1024;

/**
 * Reads backwards from the end until it has found the last complete line, so start-up costs
 * the size of one record, not of the file (records can be large: a write call's content is an argument).
 */
export async function readTail(file: FileHandle): Promise<FileTail> {
  const { size } = await file.stat();
  if (size === 0) return { size, lastLine: undefined, fragment: undefined };
  const chunks: Buffer[] = [];
  let pos = size;
  let newlines: number[] = [];
  // Collect chunks from the end until two newlines are known (the end of the last complete line
  // and the one before it), or the start of the file is reached.
  while (pos > 0) {
    const length = Math.min(CHUNK, pos);
    pos -= length;
    const chunk = Buffer.alloc(length);
    await readFully(file, chunk, pos);
    chunks.unshift(chunk);
    const joined = Buffer.concat(chunks);
    newlines = indexesOf(joined, 0x0a);
    if (newlines.length >= 2) return split(joined, newlines, size);
  }
  return split(Buffer.concat(chunks), newlines, size);
}

function split(tailBytes: Buffer, newlines: number[], size: number): FileTail {
  const last = newlines.at(-1);
  if (last === undefined) return { size, lastLine: undefined, fragment: tailBytes };
  const before = newlines.length >= 2 ? newlines.at(-2)! + 1 : 0;
  const fragment = last + 1 < tailBytes.length ? tailBytes.subarray(last + 1) : undefined;
  return { size, lastLine: tailBytes.subarray(before, last), fragment };
}

function indexesOf(buffer: Buffer, byte: number): number[] {
  const out: number[] = [];
  for (let i = buffer.indexOf(byte); i !== -1; i = buffer.indexOf(byte, i + 1)) out.push(i);
  return out;
}

async function readFully(file: FileHandle, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await file.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`The audit log shrank while it was being read (at byte ${position + done}).`);
    done += bytesRead;
  }
}

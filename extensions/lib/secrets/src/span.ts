/** A secret's place in the scanned text: UTF-16 offsets, `end` exclusive. */
export interface Span {
  start: number;
  end: number;
}

/** Where an ASCII-only run of `isChar` characters that ends at `end` starts (at most `max` back). */
export function runStart(text: string, end: number, isChar: (code: number) => boolean, max = 256): number {
  let i = end;
  while (i > 0 && end - i < max && isChar(text.charCodeAt(i - 1))) i--;
  return i;
}

/** Where a run of `isChar` characters that starts at `start` ends (at most `max` long). */
export function runEnd(text: string, start: number, isChar: (code: number) => boolean, max = 1 << 20): number {
  let i = start;
  while (i < text.length && i - start < max && isChar(text.charCodeAt(i))) i++;
  return i;
}

export const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

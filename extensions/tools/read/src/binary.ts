/**
 * Naming a binary file read will not show. Images are sniffed by the toolkit (`@airlock/toolkit/util`);
 * these formats only make the "binary file" message more useful.
 */

/** Some common binary formats by magic bytes, for a more useful "binary file" description. */
export function describeBinary(bytes: Uint8Array): string | undefined {
  if (startsWithAscii(bytes, '\x7fELF')) return 'ELF executable or library';
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return 'ZIP archive (or a format built on it: jar, docx, xlsx…)';
  if (startsWith(bytes, [0x1f, 0x8b])) return 'gzip data';
  if (startsWithAscii(bytes, '%PDF-')) return 'PDF document';
  if (startsWithAscii(bytes, 'SQLite format 3\0')) return 'SQLite database';
  if (startsWith(bytes, [0x00, 0x61, 0x73, 0x6d])) return 'WebAssembly module';
  if (startsWith(bytes, [0xcf, 0xfa, 0xed, 0xfe]) || startsWith(bytes, [0xca, 0xfe, 0xba, 0xbe])) return 'Mach-O binary';
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function startsWithAscii(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

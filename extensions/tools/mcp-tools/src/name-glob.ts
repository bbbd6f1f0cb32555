/**
 * A tool-name glob: `*` stands for any run of characters (none included); every other character
 * stands for itself. Matched without a regular expression (a key from settings never becomes
 * one): the parts between stars are found left to right, which for star-only patterns is exact.
 *
 * @example nameGlob('read_*')('read_text_file') // true
 * @example nameGlob('*_file')('write_file') // true
 */
export function nameGlob(pattern: string): (name: string) => boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return (name) => name === pattern;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p !== '');
  return (name) => {
    if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
    let at = first.length;
    const end = name.length - last.length;
    for (const part of middle) {
      const found = name.indexOf(part, at);
      if (found === -1 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
  };
}

/** Whether a `resources` key is a glob rather than a tool name. */
export function isGlob(key: string): boolean {
  return key.includes('*');
}

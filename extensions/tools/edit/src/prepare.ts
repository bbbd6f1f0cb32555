/**
 * The compatibility shim for what models actually send (Pi §4.4, #2639, #3370, #8521, #8962):
 * - a single top-level `oldText`/`newText` (the pre-multi-edit shape), folded into `edits`,
 *   appended after any edits already there;
 * - `edits` as a JSON string, even one with raw control characters (a literal newline or tab
 *   inside a string literal, which JSON forbids);
 * - items of `edits` as strings holding JSON objects.
 * Valid input is returned by identity; anything that is not an object passes through untouched.
 */
export function prepareEditArguments(input: unknown): unknown {
  if (!isRecord(input)) return input;
  let edits: unknown = input.edits;
  let changed = false;

  if (typeof edits === 'string') {
    const parsed = parseLenientJson(edits);
    if (parsed !== undefined) {
      edits = isRecord(parsed) ? [parsed] : parsed;
      changed = true;
    }
  }
  if (Array.isArray(edits) && edits.some((item) => typeof item === 'string')) {
    edits = edits.map((item) => {
      if (typeof item !== 'string') return item;
      const parsed = parseLenientJson(item);
      return isRecord(parsed) ? parsed : item;
    });
    changed = true;
  }

  const { oldText, newText, ...rest } = input;
  const legacy = typeof oldText === 'string' && typeof newText === 'string';
  if (legacy) {
    edits = [...(Array.isArray(edits) ? edits : []), { oldText, newText }];
    changed = true;
  }
  if (!changed) return input;
  return legacy ? { ...rest, edits } : { ...input, edits };
}

/** JSON.parse, retried with raw control characters inside string literals escaped. */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // fall through
  }
  try {
    return JSON.parse(escapeControlCharsInStrings(text));
  } catch {
    return undefined;
  }
}

/** Escape U+0000–U+001F that appear inside JSON string literals (outside them they are whitespace or errors). */
export function escapeControlCharsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = ch.charCodeAt(0);
    if (!inString) {
      if (ch === '"') inString = true;
      out += ch;
      continue;
    }
    if (escaped) {
      escaped = false;
      out += ch;
      continue;
    }
    if (ch === '\\') escaped = true;
    else if (ch === '"') inString = false;
    else if (code < 0x20) {
      out += CONTROL_ESCAPES[code] ?? `\\u${code.toString(16).padStart(4, '0')}`;
      continue;
    }
    out += ch;
  }
  return out;
}

const CONTROL_ESCAPES: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

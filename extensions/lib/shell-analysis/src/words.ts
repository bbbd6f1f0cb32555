import type { Node } from 'web-tree-sitter';
import { decodeAnsiC } from './ansi-c.js';
import { unsure } from './unsure.js';

/** A shell word as the command will receive it, when that can be known. */
export interface Word {
  /** The value with quotes and escapes removed when static; the source text otherwise. */
  text: string;
  static: boolean;
  source: string;
  /** A process substitution: the command gets a pipe path, not a file worth a policy check. */
  pipe: boolean;
}

/** One character of a word and whether the shell may still treat it as special (unquoted, unescaped). */
interface Char {
  c: string;
  active: boolean;
}

interface Pieces {
  chars: Char[];
  dynamic: boolean;
}

const DYNAMIC_NODES = new Set([
  'simple_expansion',
  'expansion',
  'command_substitution',
  'arithmetic_expansion',
  'process_substitution',
  'brace_expression',
  'array',
  'extglob_pattern',
]);

function push(into: Pieces, text: string, active: boolean): void {
  for (const c of text) into.chars.push({ c, active });
}

function decodeUnquoted(text: string, into: Pieces): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      i++;
      if (next === undefined || next === '\n') continue; // line continuation
      into.chars.push({ c: next, active: false });
    } else {
      into.chars.push({ c, active: true });
    }
  }
}

// Inside double quotes a backslash only escapes these; before anything else it stays literal.
function decodeDoubleQuoted(text: string, into: Pieces): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      i++;
      if (next !== '\n') into.chars.push({ c: next, active: false });
    } else {
      into.chars.push({ c, active: false });
    }
  }
}

/** Child nodes must cover their parent's text exactly; a gap means the tree does not show all of the word. */
function childrenCover(node: Node, children: Node[], inner: number): void {
  const covered = children.reduce((n, child) => n + child.text.length, 0);
  if (covered !== inner) unsure(`could not read the word ${JSON.stringify(node.text)}`);
}

function collect(node: Node, into: Pieces): void {
  switch (node.type) {
    case 'word':
    case 'number':
      decodeUnquoted(node.text, into);
      return;
    case 'raw_string':
      push(into, node.text.slice(1, -1), false);
      return;
    case 'ansi_c_string':
      push(into, decodeAnsiC(node.text.slice(2, -1)), false);
      return;
    case 'string': {
      const children = node.children.filter((c): c is Node => c !== null);
      childrenCover(node, children, node.text.length);
      for (const child of children) {
        if (child.type === '"') continue;
        if (child.type === 'string_content') decodeDoubleQuoted(child.text, into);
        else if (DYNAMIC_NODES.has(child.type)) {
          into.dynamic = true;
          push(into, child.text, false);
        } else unsure(`unsupported syntax in a quoted string: ${child.type}`);
      }
      return;
    }
    case 'concatenation': {
      const children = node.children.filter((c): c is Node => c !== null);
      childrenCover(node, children, node.text.length);
      for (const child of children) collect(child, into);
      return;
    }
    default:
      if (DYNAMIC_NODES.has(node.type)) {
        into.dynamic = true;
        push(into, node.text, false);
        return;
      }
      unsure(`unsupported word syntax: ${node.isNamed ? node.type : JSON.stringify(node.type)}`);
  }
}

/** Unquoted `*`, `?` or `[…]` make the shell expand the word to file names. */
function hasGlob(chars: Char[]): boolean {
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (!ch.active) continue;
    if (ch.c === '*' || ch.c === '?') return true;
    if (ch.c === '[' && chars.slice(i + 2).some((later) => later.c === ']')) return true;
  }
  return false;
}

/** Unquoted `{a,b}` or `{1..3}` expand to several words. */
function hasBraceExpansion(chars: Char[]): boolean {
  for (let i = 0; i < chars.length; i++) {
    if (!chars[i]!.active || chars[i]!.c !== '{') continue;
    let sawSeparator = false;
    for (let j = i + 1; j < chars.length; j++) {
      const ch = chars[j]!;
      if (!ch.active) continue;
      if (ch.c === ',' || (ch.c === '.' && chars[j + 1]?.c === '.' && chars[j + 1]!.active)) sawSeparator = true;
      if (ch.c === '}') {
        if (sawSeparator) return true;
        break;
      }
    }
  }
  return false;
}

/**
 * `~` and `~/x` stay as written (static): the path policy resolves the home folder itself, as it
 * does for every tool's paths. `~user`, `~+` and `~-` depend on the system or the shell's state.
 */
function hasUnknownTilde(chars: Char[]): boolean {
  if (chars[0]?.c !== '~' || !chars[0].active) return false;
  const next = chars[1];
  return next !== undefined && next.c !== '/';
}

export function readWord(node: Node): Word {
  const pieces: Pieces = { chars: [], dynamic: false };
  collect(node, pieces);
  const dynamic =
    pieces.dynamic || hasGlob(pieces.chars) || hasBraceExpansion(pieces.chars) || hasUnknownTilde(pieces.chars);
  const source = node.text;
  return {
    text: dynamic ? source : pieces.chars.map((ch) => ch.c).join(''),
    static: !dynamic,
    source,
    pipe: node.type === 'process_substitution',
  };
}

/** A word made up by the analysis itself (the joined string `watch` runs, a placeholder). */
export function literalWord(text: string, isStatic = true): Word {
  return { text, static: isStatic, source: text, pipe: false };
}

import type { Node } from 'web-tree-sitter';
import type { Redirect } from './types.js';
import { unsure } from './unsure.js';
import { readWord, type Word } from './words.js';
import type { Stdin } from './programs.js';

/** One redirection node read into what the analysis needs from it. */
export interface ReadRedirect {
  redirect: Redirect;
  /** The target as a word, when it names a file read or written. */
  read?: Word;
  write?: Word;
  /** Words tree-sitter attaches to a redirection that are really the command's arguments (`cat > f x`). */
  extraArgs: Word[];
  /** Set when this redirection decides the command's standard input. */
  stdin?: Stdin;
  /** Statements tree-sitter nests in a heredoc redirection: the rest of the line (`| sh`, `&& echo`). */
  continuation: Node[];
  /** Nodes whose command substitutions still run (heredoc bodies, here-strings, targets). */
  expansions: Node[];
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>']);

function childNodes(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

function fileRedirect(node: Node): ReadRedirect {
  const children = childNodes(node);
  const opNode = children.find((c) => !c.isNamed);
  if (!opNode) unsure(`redirection without an operator: ${node.text}`);
  const op = opNode.type;
  const descriptor = node.childForFieldName('descriptor');
  const targets = children.filter((c) => c.isNamed && c.type !== 'file_descriptor');
  const out: ReadRedirect = {
    redirect: { op, target: undefined, kind: 'dup' },
    extraArgs: targets.slice(1).map(readWord),
    continuation: [],
    expansions: targets,
  };
  if (descriptor) out.redirect.fd = Number(descriptor.text);
  const first = targets[0];
  const target = first ? readWord(first) : undefined;
  if (target?.static) out.redirect.target = target.text;
  if (op === '<') {
    out.redirect.kind = 'read';
    if (target) out.read = target;
    if (out.redirect.fd === undefined || out.redirect.fd === 0) out.stdin = { kind: 'file' };
  } else if (WRITE_OPS.has(op)) {
    out.redirect.kind = 'write';
    if (target) out.write = target;
  } else if (op === '>&' && target?.static && !/^(\d+|-)$/.test(target.text)) {
    out.redirect.kind = 'write'; // `>&file` is `&>file`
    out.write = target;
  } else if (op === '<&' || op === '>&' || op === '<&-' || op === '>&-') {
    out.redirect.kind = 'dup';
    if (op.endsWith('-')) out.redirect.target = '-';
  } else {
    unsure(`unsupported redirection operator ${op}`);
  }
  return out;
}

function hereString(node: Node): ReadRedirect {
  const value = childNodes(node).find((c) => c.isNamed);
  const word = value ? readWord(value) : undefined;
  return {
    redirect: { op: '<<<', target: undefined, kind: 'heredoc', ...(word?.static ? { body: `${word.text}\n` } : {}) },
    extraArgs: [],
    stdin: { kind: 'text', body: word?.static ? `${word.text}\n` : undefined },
    continuation: [],
    expansions: value ? [value] : [],
  };
}

/** In an unquoted heredoc a backslash escapes only `$`, `` ` ``, `\` and a newline. */
function unescapeHeredoc(text: string): string {
  return text.replace(/\\([$`\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
}

/** Any quoting in a heredoc's delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`, `<<E"O"F`) makes its body literal text. */
export function heredocDelimiterQuoted(start: Node | undefined | null): boolean {
  return start ? /['"\\]/.test(start.text) : false;
}

function heredoc(node: Node): ReadRedirect {
  const children = childNodes(node);
  const op = children[0]!.type; // '<<' or '<<-'
  const start = children.find((c) => c.type === 'heredoc_start');
  const body = children.find((c) => c.type === 'heredoc_body');
  const quoted = heredocDelimiterQuoted(start);
  // Without a quoted delimiter, expansions and command substitutions in the body run.
  const expands = !quoted && body !== undefined && body.namedChildren.some((c) => c !== null && c.type !== 'heredoc_content');
  let text: string | undefined;
  if (!expands) {
    text = body?.text ?? '';
    if (!quoted) text = unescapeHeredoc(text);
    if (op === '<<-') text = text.replace(/^\t+/gm, '');
  }
  const between = children.filter((c) => c !== start && c !== body && c.type !== 'heredoc_end' && c !== children[0]);
  return {
    redirect: { op, target: undefined, kind: 'heredoc', ...(text !== undefined ? { body: text } : {}) },
    extraArgs: [],
    stdin: { kind: 'text', body: text },
    continuation: between.filter((c) => c.isNamed),
    expansions: body && !quoted ? [body] : [],
  };
}

export function readRedirect(node: Node): ReadRedirect {
  if (node.type === 'file_redirect') return fileRedirect(node);
  if (node.type === 'herestring_redirect') return hereString(node);
  if (node.type === 'heredoc_redirect') return heredoc(node);
  return unsure(`unsupported redirection: ${node.type}`);
}

export const REDIRECT_TYPES = new Set(['file_redirect', 'herestring_redirect', 'heredoc_redirect']);

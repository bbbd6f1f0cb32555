import type { Node, Parser, Tree } from 'web-tree-sitter';
import { heredocDelimiterQuoted } from './redirects.js';
import { unsure } from './unsure.js';

/**
 * tree-sitter-bash and bash disagree about two things that decide which command runs:
 *
 * - A line continuation (backslash-newline) is whitespace to tree-sitter, but bash deletes it
 *   before it splits words, so `cu\<newline>rl` is `curl`. bash keeps it only inside single quotes
 *   and `$'…'`, in a comment, and in the body of a heredoc whose delimiter is quoted.
 * - `coproc [NAME] COMMAND` is a keyword to bash; tree-sitter reads it as a command named coproc
 *   and splits a compound command after it (`coproc N { curl x; }`) into broken pieces.
 *
 * So the script is rewritten to what bash's word splitting sees (continuations deleted, the coproc
 * keyword and its NAME blanked), parsed again, and the new tree must need no further rewrite: a
 * continuation whose place depends on a guess makes the analysis unsure, never a split word.
 */

interface Edit {
  from: number;
  to: number;
  text: string;
}

/** Nodes inside which a backslash-newline is literal text. */
const LITERAL = new Set(['raw_string', 'ansi_c_string', 'comment']);

/** Words that start a compound command after `coproc` (then an optional NAME may precede them). */
const COMPOUND_START = new Set(['{', '(', '((', '[[', 'if', 'while', 'until', 'for', 'select', 'case']);

function continuationIsLiteral(root: Node, at: number): boolean {
  for (let node: Node | null = root.descendantForIndex(at, at + 1); node; node = node.parent) {
    if (LITERAL.has(node.type)) return true;
    if (node.type === 'heredoc_body') {
      return heredocDelimiterQuoted(node.parent?.children.find((c) => c?.type === 'heredoc_start'));
    }
  }
  return false;
}

/** Backslash-newlines bash deletes: the backslash is not itself escaped, and the place is not literal. */
function continuationEdits(root: Node, script: string): Edit[] {
  const edits: Edit[] = [];
  for (let nl = script.indexOf('\\\n'); nl !== -1; nl = script.indexOf('\\\n', nl + 1)) {
    let backslashes = 0;
    for (let i = nl; i >= 0 && script[i] === '\\'; i--) backslashes++;
    // `\\<newline>` is an escaped backslash followed by a real newline.
    if (backslashes % 2 === 0) continue;
    if (!continuationIsLiteral(root, nl)) edits.push({ from: nl, to: nl + 2, text: '' });
  }
  return edits;
}

function blank(node: Node): Edit {
  return { from: node.startIndex, to: node.endIndex, text: ' '.repeat(node.endIndex - node.startIndex) };
}

function startsCompound(node: Node | undefined): boolean {
  return node !== undefined && (node.type === 'subshell' || COMPOUND_START.has(node.text));
}

/** `coproc` where bash reads it as a keyword: first in a command, written plainly (a quoted `'coproc'` is no keyword). */
function coprocEdits(root: Node): Edit[] {
  const edits: Edit[] = [];
  const visit = (node: Node): void => {
    if (node.type === 'command') {
      const name = node.childForFieldName('name');
      // After an assignment or a redirection `coproc` is no keyword but a program's name (`A=1 coproc x`).
      if (name?.text === 'coproc' && node.firstChild?.id === name.id) {
        const after = node.children.filter((c): c is Node => c !== null && c.id !== name.id && c.startIndex >= name.endIndex);
        edits.push(blank(name));
        // coproc NAME { …; }: NAME names the coprocess. Before a simple command there is no NAME.
        if (!startsCompound(after[0]) && startsCompound(after[1])) edits.push(blank(after[0]!));
      }
    }
    for (const child of node.children) if (child) visit(child);
  };
  if (/\bcoproc\b/.test(root.text)) visit(root);
  return edits;
}

function apply(script: string, edits: Edit[]): string {
  let out = script;
  for (const e of [...edits].sort((a, b) => b.from - a.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}

/**
 * Parses script as bash will run it. Returns the tree of the rewritten script and its text (the
 * commands' `text` shows what runs: `curl`, not `cu\<newline>rl`). The caller deletes the tree.
 */
export function parseAsBash(parser: Parser, script: string): { tree: Tree; script: string } {
  let text = script;
  // Two rewrites at most: one for what the first tree shows, one for a coproc a continuation hid.
  for (let round = 0; ; round++) {
    const tree = parser.parse(text);
    if (!tree) unsure('the parser returned no tree');
    const edits = text.includes('\\\n') || text.includes('coproc') ? [...continuationEdits(tree.rootNode, text), ...coprocEdits(tree.rootNode)] : [];
    if (edits.length === 0) return { tree, script: text };
    tree.delete();
    if (round === 2) unsure('line continuations or coproc whose place the parser cannot settle; not analysed');
    text = apply(text, edits);
  }
}

/**
 * A unified patch built from the known edit positions, not by diffing two whole files: the cost
 * is proportional to the changed lines (plus counting line breaks up to the last edit), so a
 * one-line edit in a 10 MB file stays cheap.
 */

export interface Replacement {
  start: number;
  end: number;
  replacement: string;
}

const CONTEXT = 3;

interface Block {
  /** 1-based line number of the first old line. */
  oldLine: number;
  /** Offsets of the old lines [from, to) in the original text. */
  from: number;
  to: number;
  oldLines: string[];
  newLines: string[];
}

/** `text`'s lines from `from` to `to`, each keeping its '\n' (the last may lack one: end of file). */
function splitKeep(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const k = s.indexOf('\n', i);
    if (k === -1) {
      out.push(s.slice(i));
      break;
    }
    out.push(s.slice(i, k + 1));
    i = k + 1;
  }
  return out;
}

function lineStart(text: string, offset: number): number {
  return offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const k = text.indexOf('\n', offset);
  return k === -1 ? text.length : k + 1;
}

/** Sorted, disjoint replacements → changed blocks with line numbers, unchanged lines trimmed off. */
function blocks(text: string, edits: readonly Replacement[], firstLine: number): Block[] {
  const groups: { from: number; to: number; after: string }[] = [];
  let cursor = 0;
  for (const e of edits) {
    const from = lineStart(text, e.start);
    const to = lineEnd(text, e.end);
    const open = groups[groups.length - 1];
    if (open && from < open.to) {
      open.after += text.slice(cursor, e.start) + e.replacement;
      open.to = Math.max(open.to, to);
    } else {
      if (open) open.after += text.slice(cursor, open.to);
      groups.push({ from, to, after: text.slice(from, e.start) + e.replacement });
    }
    cursor = e.end;
  }
  const lastGroup = groups[groups.length - 1];
  if (lastGroup) lastGroup.after += text.slice(cursor, lastGroup.to);

  const out: Block[] = [];
  let line = firstLine;
  let counted = 0;
  for (const g of groups) {
    for (let k = text.indexOf('\n', counted); k !== -1 && k < g.from; k = text.indexOf('\n', k + 1)) line++;
    counted = g.from;
    const oldLines = splitKeep(text.slice(g.from, g.to));
    const newLines = splitKeep(g.after);
    let p = 0;
    while (p < oldLines.length && p < newLines.length && oldLines[p] === newLines[p]) p++;
    let s = 0;
    while (s < oldLines.length - p && s < newLines.length - p && oldLines[oldLines.length - 1 - s] === newLines[newLines.length - 1 - s]) s++;
    if (p === oldLines.length && p === newLines.length) continue;
    let from = g.from;
    for (let k = 0; k < p; k++) from += oldLines[k]!.length;
    const kept = oldLines.slice(p, oldLines.length - s);
    let to = from;
    for (const l of kept) to += l.length;
    out.push({ oldLine: line + p, from, to, oldLines: kept, newLines: newLines.slice(p, newLines.length - s) });
  }
  return out;
}

function linesBefore(text: string, offset: number, n: number): string[] {
  const out: string[] = [];
  let pos = offset;
  while (out.length < n && pos > 0) {
    const start = pos < 2 ? 0 : text.lastIndexOf('\n', pos - 2) + 1;
    out.unshift(text.slice(start, pos));
    pos = start;
  }
  return out;
}

function linesAfter(text: string, offset: number, n: number): string[] {
  const out: string[] = [];
  let pos = offset;
  while (out.length < n && pos < text.length) {
    const end = lineEnd(text, pos);
    out.push(text.slice(pos, end));
    pos = end;
  }
  return out;
}

function show(prefix: string, line: string): string {
  if (!line.endsWith('\n')) return `${prefix}${line}\n\\ No newline at end of file\n`;
  return `${prefix}${line.endsWith('\r\n') ? line.slice(0, -2) : line.slice(0, -1)}\n`;
}

/**
 * The unified patch (---/+++ headers, @@ hunks, 3 lines of context) for applying sorted, disjoint
 * `edits` to `text`, and the first changed line of the new file. `text` may be a window of the
 * file that starts at a line start, holds 3 lines before the first edit's line and 4 line breaks
 * after the last edit; `firstLine` is the line number of its first line.
 */
export function buildPatch(
  text: string,
  edits: readonly Replacement[],
  path: string,
  firstLine = 1,
): { diff: string; firstChangedLine: number | undefined } {
  const all = blocks(text, edits, firstLine);
  let diff = `--- a/${path}\n+++ b/${path}\n`;
  let delta = 0;
  let firstChangedLine: number | undefined;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.oldLine - (all[j]!.oldLine + all[j]!.oldLines.length) <= 2 * CONTEXT) j++;
    const first = all[i]!;
    const before = linesBefore(text, first.from, CONTEXT);
    let body = before.map((l) => show(' ', l)).join('');
    let oldCount = before.length;
    let newCount = before.length;
    const oldStart = first.oldLine - before.length;
    const newStart = oldStart + delta;
    firstChangedLine ??= first.oldLine + delta;
    for (let k = i; k <= j; k++) {
      const b = all[k]!;
      if (k > i) {
        const between = splitKeep(text.slice(all[k - 1]!.to, b.from));
        body += between.map((l) => show(' ', l)).join('');
        oldCount += between.length;
        newCount += between.length;
      }
      body += b.oldLines.map((l) => show('-', l)).join('') + b.newLines.map((l) => show('+', l)).join('');
      oldCount += b.oldLines.length;
      newCount += b.newLines.length;
    }
    const after = linesAfter(text, all[j]!.to, CONTEXT);
    body += after.map((l) => show(' ', l)).join('');
    oldCount += after.length;
    newCount += after.length;
    for (let k = i; k <= j; k++) delta += all[k]!.newLines.length - all[k]!.oldLines.length;
    const range = (start: number, count: number) => `${count === 0 ? start - 1 : start}${count === 1 ? '' : `,${count}`}`;
    diff += `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n${body}`;
    i = j + 1;
  }
  return { diff, firstChangedLine };
}

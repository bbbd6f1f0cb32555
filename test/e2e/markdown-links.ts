/**
 * The heading anchors GitHub makes for a Markdown text: lower case, punctuation dropped, spaces to
 * hyphens, `-1`, `-2` … after a repeated heading. Headings inside fenced blocks do not count.
 *
 * @example
 * headingAnchors('## `airlock policy`\n## Quick start (Node 20.19+)'); // Set { 'airlock-policy', 'quick-start-node-2019' }
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (line.trimEnd() === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]!
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/**
 * The relative links of a Markdown text (not http:, mailto: or in-page `#…` only), outside fenced
 * and inline code, as `{ target, anchor }`.
 *
 * @example
 * relativeLinks('[a](b.md#c) [x](https://y) `[no](z.md)`'); // [{ target: 'b.md', anchor: 'c' }]
 */
export function relativeLinks(markdown: string): { target: string; anchor: string | undefined; line: number }[] {
  const out: { target: string; anchor: string | undefined; line: number }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((line, index) => {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (line.trimEnd() === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('#')) continue;
      const [target, anchor] = link.split('#') as [string, string | undefined];
      out.push({ target, anchor, line: index + 1 });
    }
  });
  return out;
}

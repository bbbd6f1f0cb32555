import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The marker of a fenced block the docs test runs: the info string `sh runnable`. A reader copies
 * such a block as it stands into a shell at the clone's root; nothing in it may need a person.
 */
export const RUNNABLE = 'sh runnable';

/**
 * The runnable blocks of one Markdown text, in order. A fence that says `runnable` with another
 * language, or a runnable block left open, is an error: a marked block must never be skipped
 * silently. Fences inside other blocks (a block quoting Markdown) are not read.
 *
 * @example
 * runnableBlocks('```sh runnable\necho hi\n```\n```sh\nnot run\n```'); // ['echo hi\n']
 */
export function runnableBlocks(markdown: string): string[] {
  const lines = markdown.split('\n');
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!);
    if (match === null) continue;
    const fence = match[1]!;
    const info = match[2]!.trim();
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === fence);
    if (info.split(/\s+/).includes('runnable')) {
      if (info !== RUNNABLE) throw new Error(`line ${i + 1}: "${lines[i]}" marks a block runnable, but only \`\`\`${RUNNABLE} blocks run: write \`\`\`${RUNNABLE}`);
      if (end < 0) throw new Error(`line ${i + 1}: a \`\`\`${RUNNABLE} block is not closed`);
      blocks.push(lines.slice(i + 1, end).join('\n') + '\n');
    }
    if (end < 0) break;
    i = end;
  }
  return blocks;
}

/** Every Markdown file of the docs: README.md first, then docs/ (sub-folders included), sorted. */
export function markdownFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? walk(path) : name.endsWith('.md') ? [path] : [];
      });
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))];
}

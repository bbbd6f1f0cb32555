import { readFileSync } from 'node:fs';

/** One corpus case: a text and the secrets a scanner must report in it (none for negatives). */
export interface CorpusCase {
  name: string;
  text: string;
  secrets: string[];
}

/**
 * Read `corpus/<file>`: cases start with `=== name`, `--- secret` lines follow the text, a blank
 * line ends a case. A secret that spans lines is written as a JSON string (`--- "…\n…"`).
 */
export function readCorpus(file: string): CorpusCase[] {
  const raw = readFileSync(new URL(`./corpus/${file}`, import.meta.url), 'utf8');
  const cases: CorpusCase[] = [];
  for (const block of raw.split(/\n\n+/)) {
    const lines = block.split('\n').filter((l) => !l.startsWith('#'));
    const head = lines.findIndex((l) => l.startsWith('=== '));
    if (head === -1) continue;
    const body = lines.slice(head + 1);
    cases.push({
      name: lines[head]!.slice(4),
      text: body.filter((l) => !l.startsWith('--- ')).join('\n'),
      secrets: body.filter((l) => l.startsWith('--- ')).map((l) => l.slice(4))
        .map((s) => (s.startsWith('"') ? (JSON.parse(s) as string) : s)),
    });
  }
  return cases;
}

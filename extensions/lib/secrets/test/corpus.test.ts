import { describe, expect, it } from 'vitest';
import { createRedactor, createSecretScanner } from '../src/index.js';
import { readCorpus } from './corpus.js';

const scanner = createSecretScanner();
const positives = readCorpus('positives.txt');
const negatives = readCorpus('negatives.txt');

describe('redaction corpus', () => {
  it('has enough cases on both sides to mean something', () => {
    expect(positives.length).toBeGreaterThanOrEqual(50);
    expect(negatives.length).toBeGreaterThanOrEqual(25);
  });

  describe('true positives: exactly the secret is reported', () => {
    it.each(positives.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const found = scanner.scan(c.text).map((f) => c.text.slice(f.start, f.end));
      expect(found).toEqual(c.secrets);
    });
  });

  describe('false positives: comes through unchanged', () => {
    it.each(negatives.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const found = scanner.scan(c.text).map((f) => `${f.ruleId}: ${c.text.slice(f.start, f.end)}`);
      expect(found).toEqual([]);
      expect(createRedactor(scanner).text(c.text)).toBe(c.text);
    });
  });

  it('leaves no secret of the corpus in the redacted text', () => {
    const all = positives.map((c) => c.text).join('\n\n');
    const redacted = createRedactor(scanner).text(all);
    for (const c of positives) for (const s of c.secrets) expect(redacted).not.toContain(s);
  });
});

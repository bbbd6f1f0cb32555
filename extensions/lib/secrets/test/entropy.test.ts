import { describe, expect, it } from 'vitest';
import { createSecretScanner, ENTROPY_THRESHOLD, LETTERS_ENTROPY_THRESHOLD, plausibleSecretValue, shannonEntropy } from '../src/index.js';
import { readCorpus } from './corpus.js';

/** Values that sit after secret names in real code and config, and are not secrets. */
const CODE_VALUES = [
  'SecretString', 'undefined', 'development', 'production', 'localhost', 'required', 'changeme', 'Password', 'settings',
  'keyLength', 'aaaaaaaaaaaa', 'true_false', 'your-api-key', 'YOUR_API_KEY_HERE', 'example-token', 'not-a-real-secret',
  'my-service-account', 'SECRET_KEY_BASE', 'correcthorsebatterystaple', 'process.env.API_KEY', '${GITHUB_TOKEN}',
  '<your-token>', '/home/dev/.ssh/id_rsa', '550e8400-e29b-41d4-a716-446655440000', '12345678',
];

describe('the entropy threshold, measured on the corpus', () => {
  it('computes Shannon entropy in bits per character', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abab')).toBe(1);
    expect(shannonEntropy('0123456789abcdef')).toBe(4);
  });

  it('lets every assigned secret of the corpus through', () => {
    const scanner = createSecretScanner();
    const assigned: number[] = [];
    for (const c of readCorpus('positives.txt')) {
      for (const f of scanner.scan(c.text)) {
        if (f.ruleId !== 'secret-assignment' && f.ruleId !== 'auth-header') continue;
        const value = c.text.slice(f.start, f.end);
        assigned.push(shannonEntropy(value));
        expect(plausibleSecretValue(value), value).toBe(true);
      }
    }
    expect(assigned.length).toBeGreaterThanOrEqual(10);
    expect(Math.min(...assigned)).toBeGreaterThanOrEqual(ENTROPY_THRESHOLD);
  });

  it('holds back every code-like value', () => {
    for (const v of CODE_VALUES) expect(plausibleSecretValue(v), v).toBe(false);
  });

  it('needs more entropy from letters-only values, where words live', () => {
    expect(LETTERS_ENTROPY_THRESHOLD).toBeGreaterThan(ENTROPY_THRESHOLD);
    expect(plausibleSecretValue('correcthorsebatterystaple')).toBe(false); // 3.36 bits
    expect(plausibleSecretValue('qZxWvPkRmTbNcLdJ')).toBe(true); // random letters, 4 bits
  });
});

import { describe, expect, it } from 'vitest';
import { createRedactor, createSecretScanner, placeholderCounts } from '../src/index.js';

describe('placeholderCounts: redactions by detector, for metrics', () => {
  it('counts what a real redactor wrote, by the rule id up to its first colon (no variable or file names)', () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const redactor = createRedactor(createSecretScanner({ env: { DEPLOY_TOKEN: 'q8Zr2vK7pLm4Xw9nT3bY' }, allow: [] }));
    const text = redactor.text(`a ${token} b ${token} c q8Zr2vK7pLm4Xw9nT3bY`);
    const counts = placeholderCounts(text);
    expect(counts.get('github-token')).toBe(2);
    expect(counts.get('env')).toBe(1);
    expect([...counts.keys()].join()).not.toContain('DEPLOY_TOKEN');
  });

  it('finds nothing in text without placeholders', () => {
    expect(placeholderCounts('plain words [REDACTED] and [REDACTED:x]')).toEqual(new Map());
  });
});

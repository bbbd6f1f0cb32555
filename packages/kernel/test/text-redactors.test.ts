import { describe, expect, it } from 'vitest';
import { createKernel } from '../src/index.js';

/** The seam transcripts are redacted through: extensions register text redactors, hosts apply them. */
describe('kernel text redactors', () => {
  it('applies every redactor in registration order, and removes one on request', async () => {
    const kernel = createKernel();
    try {
      expect(kernel.redactText('pw hunter2')).toBe('pw hunter2');
      const off = kernel.registerRedactor((t) => t.replaceAll('hunter2', '[PW]'), { name: 'a/pw' });
      kernel.registerRedactor((t) => t.replaceAll('[PW]', '[PASSWORD]'), { name: 'b/rename' });
      expect(kernel.redactText('pw hunter2, again hunter2')).toBe('pw [PASSWORD], again [PASSWORD]');
      expect(kernel.redactorCount).toBe(2);
      off();
      expect(kernel.redactText('pw hunter2')).toBe('pw hunter2');
    } finally {
      await kernel.dispose();
    }
  });

  it('fails closed: a redactor that throws or answers a non-string makes redactText throw, naming it', async () => {
    const kernel = createKernel();
    try {
      kernel.registerRedactor(() => {
        throw new Error('scanner broke');
      }, { name: 'acme/broken' });
      expect(() => kernel.redactText('secret')).toThrow('the redactor "acme/broken" failed (its own error is not shown: it may quote the text)');
      try {
        kernel.redactText('secret');
      } catch (error) {
        expect((error as Error).name).toBe('RedactionError');
        expect(((error as Error).cause as Error).message).toBe('scanner broke');
      }
      const k2 = createKernel();
      k2.registerRedactor((() => undefined) as unknown as (t: string) => string, { name: 'acme/silent' });
      expect(() => k2.redactText('secret')).toThrow('the redactor "acme/silent" answered undefined, not the redacted text');
      await k2.dispose();
      expect(() => kernel.registerRedactor('no' as unknown as (t: string) => string)).toThrow('must be a function');
    } finally {
      await kernel.dispose();
    }
  });
});

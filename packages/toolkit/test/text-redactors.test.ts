import { describe, expect, it } from 'vitest';
import { TextRedactors } from '../src/index.js';

/** The seam transcripts are redacted through: extensions register text redactors, hosts apply them. */
describe('text redactors (what a host keeps for api.registerRedactor)', () => {
  it('applies every redactor in registration order, and removes one on request', () => {
    const redactors = new TextRedactors();
    expect(redactors.apply('pw hunter2')).toBe('pw hunter2');
    const off = redactors.add('a/pw', (t) => t.replaceAll('hunter2', '[PW]'));
    redactors.add('b/rename', (t) => t.replaceAll('[PW]', '[PASSWORD]'));
    expect(redactors.apply('pw hunter2, again hunter2')).toBe('pw [PASSWORD], again [PASSWORD]');
    expect(redactors.size).toBe(2);
    off();
    expect(redactors.apply('pw hunter2')).toBe('pw hunter2');
  });

  it('fails closed: a redactor that throws or answers a non-string makes apply throw, naming it', () => {
    const redactors = new TextRedactors();
    redactors.add('acme/broken', () => {
      throw new Error('scanner broke');
    });
    expect(() => redactors.apply('secret')).toThrow('the redactor "acme/broken" failed (its own error is not shown: it may quote the text)');
    try {
      redactors.apply('secret');
    } catch (error) {
      expect((error as Error).name).toBe('RedactionError');
      expect(((error as Error).cause as Error).message).toBe('scanner broke');
    }
    const silent = new TextRedactors();
    silent.add('acme/silent', (() => undefined) as unknown as (t: string) => string);
    expect(() => silent.apply('secret')).toThrow('the redactor "acme/silent" answered undefined, not the redacted text');
    expect(() => redactors.add('x', 'no' as unknown as (t: string) => string)).toThrow('must be a function');
  });
});

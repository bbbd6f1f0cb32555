import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, createSecretScanner, FORMAT_RULES, looksSecretName } from '../src/index.js';
import { FACTOR, growth, MAX_GROWTH, repeatTo, SMALL } from './linear-time.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Every rule runs in time linear in its input, whatever the input repeats. The case:
 * `echo sk-sk-sk-…` (150 KB) took 31 s because each `sk-` rescanned the rest of the run. The
 * inputs are built from each rule's own building blocks — its triggers, near-misses of them,
 * body characters, separators the bodies allow, and the words assignments key on — repeated.
 */

const ENV = { GITHUB_TOKEN: 'ghp_' + 'x'.repeat(36), DB_PASSWORD: 'aaaaaaaaaa', DATABASE_URL: 'postgres://u:abababab@h/db' };
const scanner = createSecretScanner({ env: ENV });
const scan = (text: string) => scanner.scan(text);

/** Characters and separators the rules' bodies are made of. */
const PIECES = [
  'a', 'Z', '7', 'Zq9', 'aaaaaaaa', 'A1b2C3d4E5f6G7h8', '-', '_', '.', '=', '==', ':', '/', '+', '~', '%2B', '%3D', '@', ' ', '\t', '\n', '\\n',
  '"', "'", '`', '\\"', ',', ';', '$', '{', '}', '<', '://', 'https://', 'u:p@', 'x'.repeat(64),
];
/** What the assignment finder and the key-block rules key on. */
const WORDS = [
  'key', 'token', 'password', 'API_KEY', 'Bearer ', 'Authorization: ', '--token ', 'secret=', '"password": "', 'auth', 'PAT', 'AAAAAAAA',
  '-----BEGIN PRIVATE KEY-----', '-----BEGIN ', '-----END', 'PRIVATE KEY-----', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
];

function describeGrowth(unit: string, g: { small: number; large: number }): string {
  return `${JSON.stringify(unit.slice(0, 60))}: ${g.small.toFixed(2)} ms for ${SMALL} chars, ${g.large.toFixed(2)} ms for ${SMALL * FACTOR} (limit ${MAX_GROWTH}×)`;
}

function expectLinear(run: (text: string) => unknown, unit: string): void {
  const g = growth(run, unit);
  // One retry: a single unlucky measurement (a GC, a neighbour's burst) must not fail the run.
  const again = g.ok ? g : growth(run, unit);
  expect(again.ok, describeGrowth(unit, again)).toBe(true);
}

describe('the scanner runs in linear time on adversarial repetitions', () => {
  it.each([
    ['the issue: sk- repeated', 'sk-'],
    ['sk- with a mixed-case tail that fails validation', 'sk-abcdefghij-'],
    ['jwt headers glued by dashes', 'eyJ-'],
    ['jwt header without a payload', 'eyJhbGciOiJIUzI1NiJ9.'],
    ['gitlab prefixes glued', 'glpat-'],
    ['slack prefixes glued', 'xoxb-'],
    ['stripe prefixes', 'sk_live_'],
    ['github near-miss', 'ghp_aaaaaaaaaa_'],
    ['private key headers without an END', '-----BEGIN PRIVATE KEY-----\n'],
    ['END markers without a close', '-----BEGIN RSA PRIVATE KEY-----x-----END'],
    ['assignments whose value holds the next assignment', 'key='],
    ['url values whose query holds assignments', 'x_key=a://key=b'],
    ['quoted values never closed', 'token="a'],
    ['long capitalised names', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPAT '],
    ['scheme-like runs', 'a://a:'],
    ['azure SAS signatures', 'sig=%2B'],
    ['discord-shaped dots', 'M-a.'],
    ['many real tokens (overlap resolution)', `npm_${'a1B2c3D4e5'.repeat(3)}a1B2c3 ghp_${'Zq9x'.repeat(9)} `],
    ['base64 lines of key-block width', `${'Ab+/'.repeat(16)}\n`],
  ])('%s', (_name, unit) => {
    expectLinear(scan, unit);
  }, scaledMs(30_000));

  it('every format rule, on repetitions of its own triggers, near-misses and body characters', () => {
    for (const rule of FORMAT_RULES) {
      const blocks = [...rule.triggers, ...rule.triggers.map((t) => t.slice(0, -1)), ...PIECES];
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...blocks), { minLength: 1, maxLength: 6 }), (parts) => {
          const unit = parts.join('');
          const g = growth(scan, unit, 3);
          if (!g.ok) expectLinear(scan, unit);
        }),
        { numRuns: 10, seed: 9 },
      );
    }
  }, scaledMs(120_000));

  it('secret-named assignments and key blocks, on repetitions of the words they key on', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORDS, ...PIECES), { minLength: 1, maxLength: 6 }), (parts) => {
        const unit = parts.join('');
        const g = growth(scan, unit, 3);
        if (!g.ok) expectLinear(scan, unit);
      }),
      { numRuns: 60, seed: 11 },
    );
  }, scaledMs(120_000));

  it('the redactor and secret-name checks too (object keys reach looksSecretName whole)', () => {
    const redactor = createRedactor(scanner);
    expectLinear((t) => redactor.text(t), `npm_${'a1B2c3D4e5'.repeat(3)}a1B2c3 sk-`);
    expectLinear((t) => looksSecretName(t), 'AAAAAAAAPAT');
    expectLinear((t) => redactor.value({ [t]: 'Zq9xLmN3pR5tV8wY' }), 'AUTHx');
  }, scaledMs(30_000));

  it('still finds what it should in adversarial text', () => {
    const key = 'sk-proj-' + 'Ab1'.repeat(16);
    const text = `${repeatTo('sk-', 30_000)} ${key}`;
    expect(scanner.scan(text).map((f) => text.slice(f.start, f.end))).toEqual([key]);
  });
});

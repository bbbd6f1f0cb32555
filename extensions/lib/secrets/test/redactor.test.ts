import { describe, expect, it } from 'vitest';
import { createRedactor, createSecretScanner, looksSecretName } from '../src/index.js';

const GH1 = 'ghp_' + 'Zq9x7LmN3pR5tV8wY2bD4fH6jK1sA0cE3gI5';
const GH2 = 'ghp_' + 'Bb8n2Mq4Wr6Ty1Ui3Op5As7Df9Gh0Jk2Lz4X';
const NPM = 'npm_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

describe('createSecretScanner', () => {
  it('reports UTF-16 offsets, sorted and non-overlapping', () => {
    const text = `é😀 ${NPM} and ${GH1}`;
    const found = createSecretScanner().scan(text);
    expect(found).toEqual([
      { ruleId: 'npm-token', start: 4, end: 4 + NPM.length },
      { ruleId: 'github-token', start: text.indexOf(GH1), end: text.indexOf(GH1) + GH1.length },
    ]);
  });

  it('prefers the known format over the assignment around it, and redacts only a URL password', () => {
    const scanner = createSecretScanner();
    const text = `GITHUB_TOKEN=${GH1}\nDATABASE_URL=postgres://app:Xk2v9QpL7sWm4RtZ@db/app`;
    expect(scanner.scan(text).map((f) => [f.ruleId, text.slice(f.start, f.end)])).toEqual([
      ['github-token', GH1],
      ['connection-string', 'Xk2v9QpL7sWm4RtZ'],
    ]);
  });

  it('finds the values of secret-named variables in env, of at least 8 characters, whatever their shape', () => {
    const env = { DB_PASSWORD: 'hunter2hunter2', FEATURE_TOKEN: 'true', HOME: '/root', AWS_REGION: 'eu-west-1', EDITOR: 'vim-tiny-x' };
    const scanner = createSecretScanner({ env });
    const text = 'login hunter2hunter2 true /root eu-west-1 vim-tiny-x';
    expect(scanner.scan(text).map((f) => [f.ruleId, text.slice(f.start, f.end)])).toEqual([['env:DB_PASSWORD', 'hunter2hunter2']]);
  });

  it('takes only the password from a URL held in a secret variable', () => {
    const scanner = createSecretScanner({ env: { DATABASE_URL: 'mysql://root:Lp3kQ9zR7wXa@db.internal/shop' } });
    const text = 'Access denied for root@db.internal using password Lp3kQ9zR7wXa';
    expect(scanner.scan(text).map((f) => text.slice(f.start, f.end))).toEqual(['Lp3kQ9zR7wXa']);
  });

  it('drops allowlisted findings: exact values and patterns', () => {
    const scanner = createSecretScanner({ allow: [GH1, /^npm_a1B2/] });
    expect(scanner.scan(`${GH1} ${NPM} ${GH2}`).map((f) => f.ruleId)).toEqual(['github-token']);
  });

  it('scans a 1 MB result with no secrets without finding any', () => {
    const text = 'const token = tokens[i]; // key lookup\n'.repeat(27_000);
    expect(createSecretScanner().scan(text)).toEqual([]);
  });
});

describe('createRedactor', () => {
  it('replaces each secret with a placeholder that stays the same for the same value', () => {
    const r = createRedactor(createSecretScanner());
    expect(r.text(`a ${GH1} b ${GH2} c ${GH1}`)).toBe('a [REDACTED:github-token#1] b [REDACTED:github-token#2] c [REDACTED:github-token#1]');
    expect(r.text(`again ${GH2}, and ${NPM}`)).toBe('again [REDACTED:github-token#2], and [REDACTED:npm-token#1]');
    expect(r.count).toBe(3);
  });

  it('is idempotent: redacting redacted text changes nothing', () => {
    const r = createRedactor(createSecretScanner());
    const once = r.text(`{"password": "Pq7xZ2mW9vL4kT8r", "token": "${GH1}"}`);
    expect(once).toBe('{"password": "[REDACTED:secret-assignment#1]", "token": "[REDACTED:github-token#1]"}');
    expect(r.text(once)).toBe(once);
  });

  it('returns the same string when there is nothing to redact', () => {
    const text = 'nothing here';
    expect(createRedactor(createSecretScanner()).text(text)).toBe(text);
  });

  it('deep-copies values: strings, arrays, plain objects, secret-named keys; other objects untouched', () => {
    const r = createRedactor(createSecretScanner());
    const when = new Date(0);
    const buf = Buffer.from(GH1);
    const input = { argv: ['curl', '-H', `Authorization: token ${GH1}`], env: { API_KEY: 'Lq8zR2nW5xT7vK3m', LANG: 'C.UTF-8' }, when, buf };
    const out = r.value(input);
    expect(out).toEqual({ argv: ['curl', '-H', 'Authorization: token [REDACTED:github-token#1]'], env: { API_KEY: '[REDACTED:secret-assignment#1]', LANG: 'C.UTF-8' }, when, buf });
    expect(out).not.toBe(input);
    expect(out.env).not.toBe(input.env);
    expect(out.when).toBe(when);
    expect(out.buf).toBe(buf);
    expect(input.env.API_KEY).toBe('Lq8zR2nW5xT7vK3m'); // the input is never changed
  });

  it('says whether anything changed, and survives cycles', () => {
    const r = createRedactor(createSecretScanner());
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    const clean = r.apply(cyclic);
    expect(clean.changed).toBe(false);
    expect((clean.value as Record<string, unknown>).self).toBe(clean.value);
    expect(r.apply([GH1]).changed).toBe(true);
  });
});

describe('looksSecretName', () => {
  it('flags credential names in every casing style', () => {
    for (const n of ['OPENAI_API_KEY', 'AWS_REGION', 'NPM_TOKEN', 'DB_PASSWORD', 'SMTP_PASS', 'GOOGLE_APPLICATION_CREDENTIALS', 'APIKEY', 'client_secret',
      'apiKey', 'accessToken', 'clientSecret', 'x-api-key', '--token', 'DATABASE_URL', 'GITHUB_PAT', 'privateKey', 'SECRET_NAME', 'db.password']) {
      expect(looksSecretName(n), n).toBe(true);
    }
  });

  it('leaves ordinary names alone, including ones that merely contain a keyword', () => {
    for (const n of ['PATH', 'HOME', 'PWD', 'OLDPWD', 'LANG', 'TOKENIZERS_PARALLELISM', 'SSH_AUTH_SOCK', 'TERM', 'keywords', 'author', 'max_len']) {
      expect(looksSecretName(n), n).toBe(false);
    }
  });
});

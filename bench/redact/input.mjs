// The bench's input: a deterministic 50 KiB tool result of the kind an agent actually sees —
// source code, build logs, JSON, lockfile lines, git output — with a handful of secrets in it.
// Seeded so every run (and the secretlint comparison) scans the same bytes.

import { prng } from '../lib/prng.mjs';

export const TARGET_BYTES = 50 * 1024;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;

function pick(rand, chars, n) {
  let out = '';
  for (let i = 0; i < n; i++) out += chars[Math.floor(rand() * chars.length)];
  return out;
}

function uuid(rand) {
  const h = pick(rand, HEX, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}

/** Chunks of ordinary output, each a function of the PRNG so the text varies but stays plausible. */
const CHUNKS = [
  (r) => `export async function load${pick(r, ALNUM, 6)}(path: string, options: LoadOptions = {}): Promise<Config> {\n` +
    `  const text = await readFile(path, 'utf8');\n  const parsed = JSON.parse(text) as Partial<Config>;\n` +
    `  if (parsed.apiKey === undefined) throw new Error('apiKey missing: set API_KEY in the environment');\n` +
    `  return { ...DEFAULTS, ...parsed, token: process.env.GITHUB_TOKEN ?? '' };\n}\n`,
  (r) => `2024-05-0${1 + Math.floor(r() * 9)}T12:${10 + Math.floor(r() * 49)}:07.${Math.floor(r() * 900) + 100}Z INFO  request id=${uuid(r)} method=GET path=/api/v1/items/${Math.floor(r() * 1e6)} status=200 duration_ms=${Math.floor(r() * 400)}\n`,
  (r) => `  "node_modules/${pick(r, 'abcdefghijklmnop', 7)}": {\n    "version": "${Math.floor(r() * 9)}.${Math.floor(r() * 20)}.${Math.floor(r() * 9)}",\n` +
    `    "resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz",\n    "integrity": "sha512-${pick(r, B64, 86)}=="\n  },\n`,
  (r) => `commit ${pick(r, HEX, 40)}\nAuthor: Ada Lovelace <ada@example.com>\nDate:   Tue May 7 10:${10 + Math.floor(r() * 49)}:00 2024 +0200\n\n    fix: handle empty token lists in the parser\n\n`,
  (r) => `{"id":"${uuid(r)}","name":"item-${Math.floor(r() * 1e4)}","tags":["alpha","beta"],"checksum":"${pick(r, HEX, 64)}","created":"2024-05-01T00:00:00Z","password_policy":"min 12 chars"}\n`,
  (r) => `src/parser/${pick(r, 'abcdefghij', 5)}.ts:${Math.floor(r() * 400)}:${Math.floor(r() * 80)} - error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.\n`,
  (r) => `    at Object.<anonymous> (/home/dev/project/src/${pick(r, 'abcdefgh', 6)}.js:${Math.floor(r() * 200)}:${Math.floor(r() * 40)})\n    at Module._compile (node:internal/modules/cjs/loader:1358:14)\n`,
  (r) => `  ${pick(r, 'abcdefgh', 6)}@${Math.floor(r() * 9)}.${Math.floor(r() * 9)}.${Math.floor(r() * 9)}:\n    resolution: {integrity: sha512-${pick(r, B64, 86)}==}\n    engines: {node: '>=18'}\n`,
  (r) => `const KEY_LENGTH = ${Math.floor(r() * 64)}; // the token length we accept\nfunction tokenize(input: string): Token[] { return input.split(/\\s+/).map((t) => ({ kind: 'word', text: t })); }\n`,
  (r) => `![logo](data:image/png;base64,${pick(r, B64, 600)}=)\n`,
];

/** Secrets sprinkled in: each format a different rule, as a tool result would carry them. */
const SECRETS = [
  (r) => `export GITHUB_TOKEN=ghp_${pick(r, ALNUM, 36)}\n`,
  (r) => `aws_access_key_id = AKIA${pick(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}\naws_secret_access_key = ${pick(r, B64, 40)}\n`,
  (r) => `DATABASE_URL=postgres://app:${pick(r, ALNUM, 20)}@db.internal:5432/app\n`,
  (r) => `curl -H "Authorization: Bearer ${pick(r, ALNUM, 40)}" https://api.example.com/v1/me\n`,
  (r) => `{"openai": "sk-proj-${pick(r, ALNUM, 48)}", "slack": "xoxb-${Math.floor(r() * 1e12)}-${Math.floor(r() * 1e12)}-${pick(r, ALNUM, 24)}"}\n`,
];

/** A 50 KiB string (ASCII, so bytes = UTF-16 units) with about one secret per 10 KiB. */
export function mixedResult(seed = 42, bytes = TARGET_BYTES) {
  const rand = prng(seed);
  const parts = [];
  let size = 0;
  let nextSecret = 0;
  while (size < bytes) {
    const chunk = size > (nextSecret + 1) * (bytes / (SECRETS.length + 1)) && nextSecret < SECRETS.length
      ? SECRETS[nextSecret++](rand)
      : CHUNKS[Math.floor(rand() * CHUNKS.length)](rand);
    parts.push(chunk);
    size += chunk.length;
  }
  return parts.join('').slice(0, bytes);
}

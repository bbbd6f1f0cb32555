import { Buffer } from 'node:buffer';
import { assertBounded } from './bounded.js';
import { charClass, WORD } from './char-class.js';
import type { ScanContext } from './scan-context.js';
import { runEnd, runStart, isAlnum, type Span } from './span.js';
import { sticky, type Matcher } from './sticky.js';
import { token } from './token.js';

/**
 * Known token formats. Every rule names the literal strings ("triggers") that must occur where
 * its token is; the scanner finds all triggers in one pass and runs a rule's matcher only there.
 * Formats follow the issuers' published shapes (prefix, alphabet, length).
 *
 * Linear time is part of each rule's contract: a fixed-shape token is a `sticky` regex whose
 * quantifiers are all bounded (checked at load), and a token with a body of open length is a
 * `token()`, which measures each run once per scan. Custom matchers use the ScanContext for the
 * same reason. test/linear-time.test.ts holds every rule to it with adversarial repetitions.
 */
export interface FormatRule {
  /** Placeholder name, e.g. `github-token`. */
  id: string;
  triggers: readonly string[];
  /** Try the rule at a trigger's index. Returns the secret's span, or undefined for no match. */
  match: Matcher;
}

/** Not preceded / not followed by a token character: stops `xghp_…` or `AKIA…X` half-matches. */
const B = '(?<![A-Za-z0-9_])';
const E = '(?![A-Za-z0-9_])';

const ALNUM = charClass('A-Za-z0-9');
const B64URL = charClass('A-Za-z0-9_-');

/** AWS publishes this key id in its docs; redacting it would only make examples unreadable. */
const notExample = (s: string): boolean => !s.includes('EXAMPLE');

/** A JWT header longer than this is not a header (and decoding it would cost for nothing). */
const JWT_HEADER_MAX = 2048;

/** A JWT's header is base64url JSON with `alg` (or `typ`): what tells it from three dotted words. */
function jwtHeader(head: string): boolean {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && ('alg' in parsed || 'typ' in parsed);
  } catch {
    return false;
  }
}

const jwtIdentity = {};

/** `eyJ<header>.<payload>.<signature>`: each part a run of base64url, measured once per scan. */
function jwt(text: string, at: number, ctx: ScanContext): Span | undefined {
  if (ctx.seen(jwtIdentity, at) || (at > 0 && WORD(text.charCodeAt(at - 1)))) return undefined;
  const headEnd = ctx.runEnd(B64URL, at);
  let end = headEnd;
  let ok = headEnd - at >= 11 && headEnd - at <= JWT_HEADER_MAX && text.charCodeAt(headEnd) === 46;
  if (ok) {
    const payloadEnd = ctx.runEnd(B64URL, headEnd + 1);
    ok = payloadEnd - headEnd - 1 >= 8 && text.charCodeAt(payloadEnd) === 46;
    if (ok) end = ctx.runEnd(B64URL, payloadEnd + 1);
    ok = ok && jwtHeader(text.slice(at, headEnd));
  }
  if (ok) return { start: at, end };
  // A trigger later in this header's run (`eyJ-eyJ…`) would be judged on the same run again.
  ctx.markSeen(jwtIdentity, headEnd);
  return undefined;
}

/** A generic `sk-` key must look random: long identifiers like `sk-some-feature-flag` are not keys. */
const mixedCase = (s: string): boolean => /[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s);

/** `sk-proj-…` (20+ after the kind), or a legacy `sk-…` of 32+ that looks random. */
function openaiKey(s: string): boolean {
  const kind = /^sk-(?:proj|svcacct|admin)-/.exec(s);
  if (kind !== null) return s.length - kind[0].length >= 20;
  return s.length - 3 >= 32 && mixedCase(s);
}

/** PEM body characters, including JSON's escaped newlines (service-account files). */
const isPemBody = (c: number): boolean =>
  isAlnum(c) || c === 43 || c === 47 || c === 61 || c === 32 || c === 9 || c === 10 || c === 13 || c === 92 || c === 58 || c === 44 || c === 45;

const pemBegin = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;
/** Bound the search for END so a stray BEGIN never costs a scan of a huge result. */
const PEM_MAX = 64 * 1024;

/** A private key block from BEGIN through END; a block cut short (tail truncation) up to where its body stops. */
function privateKey(text: string, at: number, ctx: ScanContext): Span | undefined {
  pemBegin.lastIndex = at;
  const m = pemBegin.exec(text);
  if (m === null) return undefined;
  const bodyStart = at + m[0].length;
  // Remembered per scan: a thousand BEGIN lines without an END search for it once, not a thousand times.
  const endAt = ctx.indexOf('-----END', bodyStart);
  if (endAt !== -1 && endAt - bodyStart < PEM_MAX) {
    const close = text.slice(endAt + 8, endAt + 88).indexOf('-----');
    if (close !== -1) return { start: at, end: endAt + 8 + close + 5 };
  }
  return { start: at, end: runEnd(text, bodyStart, isPemBody, PEM_MAX) };
}

/** Schemes whose URLs carry database or broker credentials (the rest are plain basic-auth URLs). */
const DB_SCHEMES = /^(?:postgres(?:ql)?|mysql[a-z0-9+]*|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|jdbc:[a-z]+|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?|bolt|nats|kafka|ldaps?|smtps?|ftps?|sftp)$/i;
const isSchemeChar = (c: number): boolean => isAlnum(c) || c === 43 || c === 45 || c === 46 || c === 58;
const userinfo = /([^\s:/@"'<>]{0,256}):([^\s@/"'<>]{1,256})@(?=[A-Za-z0-9[])/y;
/** `${DB_PASS}`, `<password>`, `****`, `%s`: templates, not secrets. */
const PLACEHOLDER = /^(?:\$|\{\{|<|%[sd(]|\*+$|x+$|\.\.\.)/i;

function urlPassword(text: string, at: number, database: boolean): Span | undefined {
  const schemeStart = runStart(text, at, isSchemeChar, 32);
  const scheme = text.slice(schemeStart, at);
  if (!/^[A-Za-z]/.test(scheme) || DB_SCHEMES.test(scheme) !== database) return undefined;
  userinfo.lastIndex = at + 3;
  const m = userinfo.exec(text);
  if (m === null || PLACEHOLDER.test(m[2]!)) return undefined;
  const start = at + 3 + m[1]!.length + 1;
  return { start, end: start + m[2]!.length };
}

// Often glued to a word (`/bot123…:AA…` in API URLs), so only a digit before it disqualifies.
const telegram = sticky(`(?<![0-9])[0-9]{8,12}:AA[A-Za-z0-9_-]{33}${E}`);

/** Discord bot token's first part is a base64 user id, which always starts with M, N or O. */
const discordBot = new RegExp(`${B}[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}${E}`, 'g');

export const FORMAT_RULES: readonly FormatRule[] = [
  {
    id: 'aws-access-key-id',
    triggers: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AIPA', 'ANPA', 'ANVA', 'AROA', 'APKA', 'ASCA'],
    match: sticky(`${B}A[A-Z]{3}[A-Z2-7]{16}${E}`, { validate: notExample }),
  },
  { id: 'github-token', triggers: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], match: token({ prefix: 'gh[pousr]_', body: ALNUM, min: 36, max: 255 }) },
  { id: 'github-token', triggers: ['github_pat_'], match: token({ prefix: 'github_pat_', body: WORD, min: 50, max: 255 }) },
  {
    id: 'gitlab-token',
    triggers: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'gloas-', 'glsoat-', 'glffct-'],
    match: token({ prefix: 'gl[a-z]{2,5}-', body: charClass('A-Za-z0-9_.-'), min: 20 }),
  },
  { id: 'npm-token', triggers: ['npm_'], match: sticky(`${B}npm_[A-Za-z0-9]{36}${E}`) },
  { id: 'pypi-token', triggers: ['pypi-AgE'], match: token({ prefix: 'pypi-AgE', body: B64URL, min: 50 }) },
  {
    id: 'slack-token',
    triggers: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxr-', 'xoxs-', 'xoxe', 'xapp-'],
    match: token({ prefix: 'x(?:ox[a-z](?:\\.xox[a-z])?|app)-', body: charClass('A-Za-z0-9-'), min: 10 }),
  },
  {
    id: 'slack-webhook',
    triggers: ['hooks.slack.com/'],
    match: token({ prefix: 'hooks\\.slack\\.com/(?:services|workflows|triggers)/', body: charClass('A-Za-z0-9/_+-'), min: 20, boundary: false }),
  },
  {
    id: 'stripe-key',
    triggers: ['sk_live_', 'rk_live_', 'sk_test_', 'rk_test_', 'whsec_'],
    match: token({ prefix: '(?:[sr]k_(?:live|test)|whsec)_', body: ALNUM, min: 20 }),
  },
  { id: 'twilio-key', triggers: ['SK'], match: sticky(`${B}SK[0-9a-f]{32}${E}`) },
  { id: 'sendgrid-key', triggers: ['SG.'], match: sticky(`${B}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${E}`) },
  { id: 'anthropic-key', triggers: ['sk-ant-'], match: token({ prefix: 'sk-ant-', body: B64URL, min: 32 }) },
  { id: 'openai-key', triggers: ['sk-'], match: token({ prefix: 'sk-(?!ant-)', body: B64URL, min: 20, validate: openaiKey }) },
  { id: 'google-api-key', triggers: ['AIza'], match: sticky(`${B}AIza[0-9A-Za-z_-]{35}${E}`) },
  { id: 'gcp-oauth-secret', triggers: ['GOCSPX-'], match: sticky(`${B}GOCSPX-[A-Za-z0-9_-]{28}${E}`) },
  {
    id: 'azure-storage-key',
    triggers: ['AccountKey=', 'SharedAccessKey='],
    match: token({ prefix: '(?:AccountKey|SharedAccessKey)=', body: charClass('A-Za-z0-9+/'), min: 40, pad: true, bodyOnly: true, boundary: false }),
  },
  // `%2B`/`%2F` are three characters each, so not one class: a bounded regex (a SAS signature is ~44–88 characters).
  { id: 'azure-sas-signature', triggers: ['sig='], match: sticky('sig=((?:[A-Za-z0-9+/]|%2[BFbf]){30,1024}(?:%3[Dd]|=){0,2})', { group: 1 }) },
  // Entra ID client secrets: three characters, a digit, `Q~`, then 31–34 more (the digit varies by version).
  { id: 'azure-client-secret', triggers: ['Q~'], match: sticky(`${B}[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}${E}`, { back: 4 }) },
  {
    id: 'discord-webhook',
    triggers: ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'],
    match: sticky('discord(?:app)?\\.com/api/webhooks/[0-9]{1,24}/([A-Za-z0-9_-]{40,1024})', { group: 1 }),
  },
  // Telegram bot tokens are `<bot id>:AA…`; the trigger is the `:AA`, the digits come before it.
  {
    id: 'telegram-bot-token',
    triggers: [':AA'],
    match: (text, at, ctx) => {
      const start = runStart(text, at, (c) => c >= 48 && c <= 57, 12);
      return at - start < 8 ? undefined : telegram(text, start, ctx);
    },
  },
  { id: 'shopify-token', triggers: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], match: sticky(`${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${E}`) },
  { id: 'huggingface-token', triggers: ['hf_', 'api_org_'], match: token({ prefix: '(?:hf|api_org)_', body: ALNUM, min: 30 }) },
  { id: 'linear-key', triggers: ['lin_api_', 'lin_oauth_'], match: sticky(`${B}lin_(?:api|oauth)_[A-Za-z0-9]{40}${E}`) },
  { id: 'private-key', triggers: ['-----BEGIN'], match: privateKey },
  { id: 'jwt', triggers: ['eyJ'], match: jwt },
  { id: 'connection-string', triggers: ['://'], match: (text, at) => urlPassword(text, at, true) },
  { id: 'basic-auth-url', triggers: ['://'], match: (text, at) => urlPassword(text, at, false) },
];

/**
 * Formats without a literal to anchor on; each is one pass over the text, so keep this list
 * short (the bench says what one costs).
 */
export interface ScanRule {
  id: string;
  scan(text: string, ctx: ScanContext): Span[];
}

assertBounded(discordBot.source);

export const SCAN_RULES: readonly ScanRule[] = [
  {
    id: 'discord-bot-token',
    scan(text) {
      const spans: Span[] = [];
      discordBot.lastIndex = 0;
      for (let m = discordBot.exec(text); m !== null; m = discordBot.exec(text)) spans.push({ start: m.index, end: m.index + m[0].length });
      return spans;
    },
  },
];

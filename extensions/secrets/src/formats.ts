import { Buffer } from 'node:buffer';
import { runEnd, runStart, isAlnum, type Span } from './span.js';
import { sticky } from './sticky.js';

/**
 * Known token formats. Every rule names the literal strings ("triggers") that must occur where
 * its token is; the scanner finds all triggers in one pass and runs a rule's regex only there.
 * Formats follow the issuers' published shapes (prefix, alphabet, length).
 */
export interface FormatRule {
  /** Placeholder name, e.g. `github-token`. */
  id: string;
  triggers: readonly string[];
  /** Try the rule at a trigger's index. Returns the secret's span, or undefined for no match. */
  match(text: string, at: number): Span | undefined;
}

/** Not preceded / not followed by a token character: stops `xghp_…` or `AKIA…X` half-matches. */
const B = '(?<![A-Za-z0-9_])';
const E = '(?![A-Za-z0-9_])';

/** AWS publishes this key id in its docs; redacting it would only make examples unreadable. */
const notExample = (s: string): boolean => !s.includes('EXAMPLE');

/** A JWT's header is base64url JSON with `alg` (or `typ`): what tells it from three dotted words. */
function jwtHeader(token: string): boolean {
  const head = token.slice(0, token.indexOf('.'));
  try {
    const parsed: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && ('alg' in parsed || 'typ' in parsed);
  } catch {
    return false;
  }
}

/** A generic `sk-` key must look random: long identifiers like `sk-some-feature-flag` are not keys. */
const mixedCase = (s: string): boolean => /[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s);

/** PEM body characters, including JSON's escaped newlines (service-account files). */
const isPemBody = (c: number): boolean =>
  isAlnum(c) || c === 43 || c === 47 || c === 61 || c === 32 || c === 9 || c === 10 || c === 13 || c === 92 || c === 58 || c === 44 || c === 45;

const pemBegin = /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/y;
/** Bound the search for END so a stray BEGIN never costs a scan of a huge result. */
const PEM_MAX = 64 * 1024;

/** A private key block from BEGIN through END; a block cut short (tail truncation) up to where its body stops. */
function privateKey(text: string, at: number): Span | undefined {
  pemBegin.lastIndex = at;
  const m = pemBegin.exec(text);
  if (m === null) return undefined;
  const bodyStart = at + m[0].length;
  const endAt = text.indexOf('-----END', bodyStart);
  if (endAt !== -1 && endAt - bodyStart < PEM_MAX) {
    const close = text.indexOf('-----', endAt + 8);
    if (close !== -1 && close - endAt < 80) return { start: at, end: close + 5 };
  }
  return { start: at, end: runEnd(text, bodyStart, isPemBody, PEM_MAX) };
}

/** Schemes whose URLs carry database or broker credentials (the rest are plain basic-auth URLs). */
const DB_SCHEMES = /^(?:postgres(?:ql)?|mysql[a-z0-9+]*|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|jdbc:[a-z]+|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?|bolt|nats|kafka|ldaps?|smtps?|ftps?|sftp)$/i;
const isSchemeChar = (c: number): boolean => isAlnum(c) || c === 43 || c === 45 || c === 46 || c === 58;
const userinfo = /([^\s:/@"'<>]*):([^\s@/"'<>]+)@(?=[A-Za-z0-9[])/y;
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
  { id: 'github-token', triggers: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], match: sticky(`${B}gh[pousr]_[A-Za-z0-9]{36,255}${E}`) },
  { id: 'github-token', triggers: ['github_pat_'], match: sticky(`${B}github_pat_[A-Za-z0-9_]{50,255}${E}`) },
  {
    id: 'gitlab-token',
    triggers: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'gloas-', 'glsoat-', 'glffct-'],
    match: sticky(`${B}gl[a-z]{2,5}-[A-Za-z0-9_.-]{20,}${E}`),
  },
  { id: 'npm-token', triggers: ['npm_'], match: sticky(`${B}npm_[A-Za-z0-9]{36}${E}`) },
  { id: 'pypi-token', triggers: ['pypi-AgE'], match: sticky(`${B}pypi-AgE[A-Za-z0-9_-]{50,}`) },
  { id: 'slack-token', triggers: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxr-', 'xoxs-', 'xoxe', 'xapp-'], match: sticky(`${B}x(?:ox[a-z](?:\\.xox[a-z])?|app)-[A-Za-z0-9-]{10,}${E}`) },
  { id: 'slack-webhook', triggers: ['hooks.slack.com/'], match: sticky('hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{20,}') },
  { id: 'stripe-key', triggers: ['sk_live_', 'rk_live_', 'sk_test_', 'rk_test_', 'whsec_'], match: sticky(`${B}(?:[sr]k_(?:live|test)|whsec)_[A-Za-z0-9]{20,}${E}`) },
  { id: 'twilio-key', triggers: ['SK'], match: sticky(`${B}SK[0-9a-f]{32}${E}`) },
  { id: 'sendgrid-key', triggers: ['SG.'], match: sticky(`${B}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${E}`) },
  { id: 'anthropic-key', triggers: ['sk-ant-'], match: sticky(`${B}sk-ant-[A-Za-z0-9_-]{32,}${E}`) },
  {
    id: 'openai-key',
    triggers: ['sk-'],
    match: sticky(`${B}sk-(?!ant-)(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9_-]{32,})${E}`, {
      validate: (s) => /^sk-(?:proj|svcacct|admin)-/.test(s) || mixedCase(s),
    }),
  },
  { id: 'google-api-key', triggers: ['AIza'], match: sticky(`${B}AIza[0-9A-Za-z_-]{35}${E}`) },
  { id: 'gcp-oauth-secret', triggers: ['GOCSPX-'], match: sticky(`${B}GOCSPX-[A-Za-z0-9_-]{28}${E}`) },
  { id: 'azure-storage-key', triggers: ['AccountKey=', 'SharedAccessKey='], match: sticky('(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})', { group: 1 }) },
  { id: 'azure-sas-signature', triggers: ['sig='], match: sticky('sig=((?:[A-Za-z0-9+/]|%2[BFbf]){30,}(?:%3[Dd]|=){0,2})', { group: 1 }) },
  // Entra ID client secrets: three characters, a digit, `Q~`, then 31–34 more (the digit varies by version).
  { id: 'azure-client-secret', triggers: ['Q~'], match: sticky(`${B}[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}${E}`, { back: 4 }) },
  { id: 'discord-webhook', triggers: ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'], match: sticky('discord(?:app)?\\.com/api/webhooks/[0-9]+/([A-Za-z0-9_-]{40,})', { group: 1 }) },
  // Telegram bot tokens are `<bot id>:AA…`; the trigger is the `:AA`, the digits come before it.
  {
    id: 'telegram-bot-token',
    triggers: [':AA'],
    match: (text, at) => {
      const start = runStart(text, at, (c) => c >= 48 && c <= 57, 12);
      return at - start < 8 ? undefined : telegram(text, start);
    },
  },
  { id: 'shopify-token', triggers: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], match: sticky(`${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${E}`) },
  { id: 'huggingface-token', triggers: ['hf_', 'api_org_'], match: sticky(`${B}(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,})${E}`) },
  { id: 'linear-key', triggers: ['lin_api_', 'lin_oauth_'], match: sticky(`${B}lin_(?:api|oauth)_[A-Za-z0-9]{40}${E}`) },
  { id: 'private-key', triggers: ['-----BEGIN'], match: privateKey },
  { id: 'jwt', triggers: ['eyJ'], match: sticky(`${B}eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*${E}`, { validate: jwtHeader }) },
  { id: 'connection-string', triggers: ['://'], match: (text, at) => urlPassword(text, at, true) },
  { id: 'basic-auth-url', triggers: ['://'], match: (text, at) => urlPassword(text, at, false) },
];

/**
 * Formats without a literal to anchor on; each is one sticky-free pass over the text, so keep
 * this list short (the bench says what one costs).
 */
export interface ScanRule {
  id: string;
  scan(text: string): Span[];
}

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

import { charClass } from './char-class.js';
import { shannonEntropy } from './entropy.js';
import { looksSecretName } from './names.js';
import { ScanContext } from './scan-context.js';
import { isAlnum, runEnd, runStart, type Span } from './span.js';

/**
 * Values assigned to secret-named keys: `API_KEY=…`, `"password": "…"`, `token: …`,
 * `--token …`, `Authorization: Bearer …`. Only the value is reported, and only when it looks
 * random enough to be a credential — `apiKey: string`, `password: process.env.DB_PASSWORD` and
 * `token = token` are code, not secrets.
 */

/**
 * Bits per character a value needs. Measured in test/entropy.test.ts on the corpus: the
 * assigned secrets score 3.42 (a 12-character password) to 5.0; code-like values (`undefined`,
 * `SecretString`, `changeme`, `production`) score 2.5–3.1.
 */
export const ENTROPY_THRESHOLD = 3;
/**
 * Values of letters only need more: English words run up to ~3.4 (`correcthorsebatterystaple`
 * 3.36), while 16 random letters score ~3.8.
 */
export const LETTERS_ENTROPY_THRESHOLD = 3.5;
/** `my-service-account`, `not_a_real_secret`, `YOUR_API_KEY`: words joined by separators. */
const WORDS = /^(?:[a-z]+(?:[-_.][a-z]+)+|[A-Z]+(?:[-_.][A-Z]+)+)$/;

export interface AssignmentFinding extends Span {
  ruleId: string;
}

/**
 * Words any secret-looking name contains (looksSecretName's vocabulary). Found in one
 * case-insensitive pass; a hit costs a few character comparisons when no assignment follows.
 */
const KEYWORDS = /key|token|secret|pass|cred|cookie|dsn|auth|bearer|pat|aws_|azure_|gcp_|vault_|_url|mongo|connection_?string/gi;

const isNameChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 46 || c === 45;

/** `"name": "v"`, `name = v`, `name: v`, `name := v`, `name => v`, and the JSON-in-a-string form `\"name\":\"v\"`. */
const ASSIGN = /(?:\\?["'])?[ \t]*(?::=|=>|=|:)[ \t]*/y;
/** `--token v` and `--token=v`. */
const FLAG = /(?:=|[ \t]+)/y;
/** `Bearer v`, and the scheme inside an Authorization header. */
const SCHEME = /(?:Bearer|Basic|Token|Digest|Bot)[ \t]+/iy;
const AFTER_BEARER = /[ \t]+/y;
/**
 * A quoted value: double, single or back-quoted (optionally with escaped quotes). Each scan
 * stops at the next quote of its kind, so the scans of all openers together cover the text
 * at most once per kind.
 */
const QUOTED = /\\?"([^"\\\s]*)\\?"|'([^'\s]*)'|`([^`\s]*)`/y;
/** A bare value's characters. Its run is measured through the ScanContext: `key=key=key=…` is one run. */
const BARE = charClass('\t\n\v\f\r "\'`,;(){}[]<>', true);

/** `client_id`, `private_key_id`, `accessKeyId`: identifiers of a credential, not the credential. */
const ID_NAME = /(?:[_.-]id|[a-z]Id|[_.-]ID)$/;

const MIN_LENGTH = 8;
/** Templates, references and masks: `${X}`, `$X`, `<token>`, `{{ secret }}`, `***`, an earlier placeholder. */
const PLACEHOLDER = /^(?:\$|%|<|\{|\[REDACTED:|\*{3}|x{6}|X{6}|\.\.\.)|\$\{/;
/** `process.env.API_KEY`, `config.token`, `self.password`: a dotted reference in code. */
const REFERENCE = /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PATH = /^(?:~|\.{1,2})?\/[\w./@+-]*$/;

/** Whether a value assigned to a secret name is itself plausibly a secret. */
export function plausibleSecretValue(value: string): boolean {
  if (value.length < MIN_LENGTH || value.length > 4096) return false;
  if (PLACEHOLDER.test(value) || REFERENCE.test(value) || UUID.test(value) || PATH.test(value)) return false;
  // A URL's password is the connection-string rule's job; the rest of a URL is not secret.
  if (value.includes('://')) return false;
  if (/^[0-9]+$/.test(value) && value.length < 16) return false;
  if (WORDS.test(value)) return false;
  return shannonEntropy(value) >= (/^[A-Za-z]+$/.test(value) ? LETTERS_ENTROPY_THRESHOLD : ENTROPY_THRESHOLD);
}

function ruleFor(name: string, value: string, header: boolean): string {
  if (header) return 'auth-header';
  if (/secret_?access_?key/i.test(name) && /^[A-Za-z0-9/+]{40}$/.test(value)) return 'aws-secret-access-key';
  return 'secret-assignment';
}

function readValue(text: string, at: number, ctx: ScanContext): Span | undefined {
  QUOTED.lastIndex = at;
  const m = QUOTED.exec(text);
  if (m === null) {
    const end = ctx.runEnd(BARE, at);
    return end > at ? { start: at, end } : undefined;
  }
  const group = m[1] ?? m[2] ?? m[3] ?? '';
  // Skip the opening quote (two characters when it is escaped, as in JSON inside a string).
  const start = at + (m[0].startsWith('\\') ? 2 : 1);
  return { start, end: start + group.length };
}

function sticky(re: RegExp, text: string, at: number): number | undefined {
  re.lastIndex = at;
  return re.test(text) ? re.lastIndex : undefined;
}

/** looksSecretName and not an id, remembered per scan: output repeats its names (`token` a thousand times). */
function secretName(name: string, names: Map<string, boolean>): boolean {
  let known = names.get(name);
  if (known === undefined) {
    known = looksSecretName(name) && !ID_NAME.test(name);
    names.set(name, known);
  }
  return known;
}

/** What a keyword led to: a secret, a value judged not secret, or nothing to judge. */
type Attempt = { finding: AssignmentFinding } | { rejected: Span; url: boolean } | undefined;

/** One name found at a keyword: what follows it, if anything, and whether that is a secret. */
function assignmentAt(text: string, nameStart: number, nameEnd: number, ctx: ScanContext, names: Map<string, boolean>): Attempt {
  const raw = text.slice(nameStart, nameEnd);
  const flag = raw.startsWith('-');
  const name = raw.replace(/^[-.]+/, '');
  const lower = name.toLowerCase();
  let at: number | undefined;
  let header = false;
  if (lower === 'bearer') {
    at = sticky(AFTER_BEARER, text, nameEnd);
    header = true;
  } else if (lower.endsWith('authorization')) {
    at = sticky(ASSIGN, text, nameEnd);
    if (at !== undefined) at = sticky(SCHEME, text, at) ?? at;
    header = true;
  } else if (secretName(name, names)) {
    at = flag ? sticky(FLAG, text, nameEnd) : sticky(ASSIGN, text, nameEnd);
  }
  if (at === undefined) return undefined;
  const span = readValue(text, at, ctx);
  if (span === undefined) return undefined;
  // A URL's own query may hold `token=…`: say so, so the names inside it still get a look.
  const url = ctx.indexOf('://', span.start);
  if (url !== -1 && url < span.end) return { rejected: span, url: true };
  const value = text.slice(span.start, span.end);
  if (!plausibleSecretValue(value)) return { rejected: span, url: false };
  return { finding: { ...span, ruleId: ruleFor(name, value, header) } };
}

/**
 * Every secret-named assignment in `text`, in order. Linear in the text: a value, once judged,
 * is not judged again from a keyword inside it (`key=key=key=…` is one value), except a URL's,
 * whose query parameters are names of their own.
 */
export function findAssignments(text: string, ctx = new ScanContext(text)): AssignmentFinding[] {
  const found: AssignmentFinding[] = [];
  const names = new Map<string, boolean>();
  KEYWORDS.lastIndex = 0;
  for (let m = KEYWORDS.exec(text); m !== null; m = KEYWORDS.exec(text)) {
    const nameStart = runStart(text, m.index, isNameChar);
    const nameEnd = runEnd(text, m.index, isNameChar, 256);
    // Skip the rest of this name: AWS_SECRET_ACCESS_KEY holds three keywords but is one name.
    KEYWORDS.lastIndex = nameEnd;
    const attempt = assignmentAt(text, nameStart, nameEnd, ctx, names);
    if (attempt === undefined) continue;
    if ('finding' in attempt) {
      found.push(attempt.finding);
      KEYWORDS.lastIndex = attempt.finding.end;
    } else if (!attempt.url) KEYWORDS.lastIndex = Math.max(nameEnd, attempt.rejected.end);
  }
  return found;
}

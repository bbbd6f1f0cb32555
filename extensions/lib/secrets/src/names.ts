/**
 * Which names (environment variables, JSON keys, CLI flags, config keys) hold credentials.
 * Deliberately generous: a false "secret" only hides a value, a false "not secret" leaks one.
 * Names that merely contain a word (TOKENIZERS_PARALLELISM, SSH_AUTH_SOCK, PWD) stay public,
 * because the bash tool hands those to commands and they break tools when withheld.
 */

/** Name segments (split on `_`, `-`, `.` and camelCase) that mark a value as a credential. */
const SECRET_SEGMENTS = new Set([
  'KEY', 'KEYS', 'APIKEY', 'TOKEN', 'TOKENS', 'SECRET', 'SECRETS', 'PASSWORD', 'PASSWORDS', 'PASSWD', 'PASS',
  'PASSPHRASE', 'CREDENTIAL', 'CREDENTIALS', 'CREDS', 'PAT', 'COOKIE', 'DSN',
  // MYSQL_PWD, ORACLE_PWD (PWD and OLDPWD alone are folders: see PUBLIC_NAMES); CI_JOB_JWT; SLACK_WEBHOOK.
  'PWD', 'JWT', 'WEBHOOK', 'AUTHORIZATION', 'BEARER',
]);

/** Names that the rules above would call secret but that every shell sets to a folder. */
const PUBLIC_NAMES = new Set(['PWD', 'OLDPWD']);

/** Suffixes without a separator, e.g. APIKEY, GITHUBTOKEN, DBPASSWORD. */
const SECRET_SUFFIX = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS)$/;

/** Words that make any name secret wherever they sit (CLIENT_SECRET_ID, PASSWORD_HASH_INPUT). */
const SECRET_INFIX = /SECRET|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_?KEY|CREDENTIAL/;

/** Whole families of credentials. */
const SECRET_PREFIXES = ['AWS_', 'AZURE_', 'GOOGLE_APPLICATION_CREDENTIALS', 'GCP_', 'VAULT_'];

/** Known names the rules above would miss. */
const SECRET_NAMES = new Set([
  'DATABASE_URL', 'REDIS_URL', 'MONGODB_URI', 'MONGO_URL', 'NPM_CONFIG__AUTH', 'PGPASSWORD', 'CONNECTION_STRING', '_AUTH',
  // Bitwarden's unlocked-vault session key.
  'BW_SESSION',
]);

/**
 * Names tools read credentials from whose words say nothing about it (checked upper-cased):
 * - `*_AUTH`, `*_AUTH_CONFIG`, `*_AUTH_IDENT`: npm's `_auth`, COMPOSER_AUTH (JSON with
 *   passwords), DOCKER_AUTH_CONFIG (registry logins), YARN_NPM_AUTH_IDENT (user:password);
 * - `NPM_CONFIG__AUTH…` and `NPM_CONFIG_//host/:_authToken` (npm's per-registry tokens);
 * - `BUNDLE_<HOST>`: Bundler reads `user:password` for a gem server from `BUNDLE_` plus the
 *   host with `.` written `__` (BUNDLE_GEMS__EXAMPLE__COM); its settings (BUNDLE_PATH,
 *   BUNDLE_GEMFILE) have no `__`;
 * - `OP_SESSION_<account>`: 1Password CLI's session token;
 * - `*_CONNECTION_STRING`, `*_CONN_STR`: a server address with its password.
 */
const SECRET_NAME_SHAPES = /(?:_AUTH|_AUTH_CONFIG|_AUTH_IDENT)$|^NPM_CONFIG__AUTH|^NPM_CONFIG_\/\/|^BUNDLE_[A-Z0-9_-]*__|^OP_SESSION_|(?:CONNECTION_STRING|_CONN_STR)$/;

/**
 * `apiKey` → `api_Key`, `HTTPToken` → `HTTP_Token`: camelCase boundaries become separators.
 * Lookaheads only: `([A-Z]+)([A-Z][a-z])` would backtrack through every uppercase run from
 * every start, quadratic in a long key of capitals.
 */
function splitCamel(name: string): string {
  return name.replace(/([a-z0-9])(?=[A-Z])/g, '$1_').replace(/([A-Z])(?=[A-Z][a-z])/g, '$1_');
}

/**
 * Whether a name suggests its value is a secret (case-insensitive).
 *
 * @example
 * looksSecretName('OPENAI_API_KEY'); // true
 * looksSecretName('clientSecret');   // true
 * looksSecretName('TOKENIZERS_PARALLELISM'); // false
 */
export function looksSecretName(name: string): boolean {
  const upper = name.replace(/^-+/, '').toUpperCase();
  if (PUBLIC_NAMES.has(upper)) return false;
  if (SECRET_NAMES.has(upper) || SECRET_NAME_SHAPES.test(upper)) return true;
  if (SECRET_PREFIXES.some((p) => upper.startsWith(p))) return true;
  if (SECRET_SUFFIX.test(upper) || SECRET_INFIX.test(upper)) return true;
  return splitCamel(name)
    .toUpperCase()
    .split(/[_.\-]+/)
    .some((segment) => SECRET_SEGMENTS.has(segment));
}

/**
 * Well-known secret files, in rule path syntax (a name without a slash matches at any depth).
 * Reading one is denied and writing one asks unless a rule says otherwise (defaultEffect).
 */
export const SECRET_PATTERNS: readonly string[] = Object.freeze([
  '.env',
  '.env.*',
  '.envrc',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.keystore',
  '*.jks',
  // Private keys by their usual names; `id_*` as a whole would catch id_utils.ts, and the .pub halves are public.
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_ecdsa_sk',
  'id_ed25519_sk',
  '.netrc',
  '.pgpass',
  '.git-credentials',
  '~/.ssh/**',
  '~/.gnupg/**',
  '~/.aws/credentials',
  '~/.aws/sso/cache/**',
  '~/.aws/cli/cache/**',
  '~/.config/gcloud/**',
  '~/.azure/**',
  '~/.docker/config.json',
  '~/.kube/config',
  // The user's npmrc usually holds the registry token; a project's .npmrc usually does not, and
  // judging by content would be a race with the write that adds one: the home one only.
  '~/.npmrc',
  '~/.pypirc',
  '~/.config/gh/hosts.yml',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  '~/.local/share/keyrings/**',
  '~/.password-store/**',
  '~/.bash_history',
  '~/.zsh_history',
  // A process's environment: Airlock's own holds every secret variable bash is not given.
  '/proc/*/environ',
  '/proc/*/task/*/environ',
]);

/**
 * Committed templates that match `.env.*` but hold no secrets by convention. They are not
 * secret files; a rule can still deny them.
 */
export const NOT_SECRET_NAMES: readonly string[] = Object.freeze(['.env.example', '.env.sample', '.env.template', '.env.dist', '.env.defaults']);

/**
 * Names a shell glob is tried against: a glob in a bash command that could expand to one of
 * these (`cat .en?`, `cat .e*`) is never allowed without a person, even when no such file exists now.
 */
export const SECRET_SAMPLE_NAMES: readonly string[] = Object.freeze([
  '.env',
  '.env.local',
  '.env.production',
  '.envrc',
  'server.pem',
  'server.key',
  'id_rsa',
  'id_ed25519',
  'id_ecdsa',
  '.netrc',
  '.pgpass',
  '.git-credentials',
  'credentials',
  '.npmrc',
]);

/** Device files that are not storage: writing /dev/null is not a write outside the roots. */
export const DEVICE_PATHS: readonly string[] = Object.freeze(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty', '/dev/zero']);

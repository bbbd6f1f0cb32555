/**
 * Programs whose job is printing a stored credential. Running one is a secret read, like opening
 * the file the credential lives in (`gh auth token` prints what ~/.config/gh/hosts.yml holds),
 * so it gets the same default (`defaultEffect.secretRead`, deny) under its own rule name,
 * `default:credential-read`. Only an allow rule without wildcards that names the command lifts
 * it (`bash(gh auth token)`): a broad `bash(gh *)` or `bash(git *)` was written for ordinary work.
 */

/** One word of a command: its text, or a word only known at run time. */
export interface Token {
  text: string;
  dynamic: boolean;
}

/**
 * Compares a word with expected words (a RegExp tests the text); a run-time word matches
 * anything in "possible" mode and nothing in "certain" mode. `is.unknown(t)` is true for a
 * run-time word in "possible" mode only.
 */
export interface Is {
  (token: Token | undefined, ...words: (string | RegExp)[]): boolean;
  unknown(token: Token | undefined): boolean;
}

export interface CredentialCommand {
  /** The program's name (argv[0]'s basename), or a pattern for families (`docker-credential-*`). */
  program: string | RegExp;
  /** What it prints, for the reason a person reads. */
  what: string;
  /** Options that take the next word as their value (so it is not taken for a subcommand). */
  valueOptions?: readonly string[];
  /** Whether these operands (options removed) and words make it print the credential. */
  prints: (operands: readonly Token[], argv: readonly Token[], is: Is) => boolean;
}

/** ps options whose value is the next word (`-o user`, BSD `o user`): that word is not a flag cluster. */
const PS_VALUE_OPTIONS = new Set(['-o', '-O', '-p', '-u', '-U', '-g', '-G', '-t', '-C', '-q', '-k', '--sort', '--format', '--pid', '--user', 'o', 'O', 'p', 'U', 't', 'k', 'q']);

/** A BSD-style flag cluster with `e` (`ps eww`, `ps auxe`): letters of BSD flags only. */
function psShowsEnvironment(argv: readonly Token[], is: Is): boolean {
  for (let i = 1; i < argv.length; i++) {
    const t = argv[i]!;
    if (is.unknown(t)) return true;
    if (t.dynamic) continue;
    if (PS_VALUE_OPTIONS.has(t.text)) {
      i++;
      continue;
    }
    if (/^[aAcCeEfFhjlLmMnrsSTuvwxXZ]+$/.test(t.text) && t.text.includes('e')) return true;
  }
  return false;
}

/** `aws configure get KEY`, `npm config get KEY`: the key names a credential (no key: all of them). */
const secretKey = (key: Token | undefined, is: Is): boolean => key === undefined || is.unknown(key) || (!key.dynamic && SECRET_KEY.test(key.text));

const hasFlag = (argv: readonly Token[], ...flags: string[]): boolean =>
  argv.some((t) => !t.dynamic && (flags.includes(t.text) || flags.some((f) => f.startsWith('--') && t.text.startsWith(`${f}=`))));

/** `-w`, `-gw`, `-a x -w`: a short option letter given alone or in a cluster. */
const hasShort = (argv: readonly Token[], letters: string): boolean =>
  argv.some((t) => !t.dynamic && /^-[A-Za-z]+$/.test(t.text) && [...letters].some((l) => t.text.includes(l)));

const SECRET_KEY = /secret|token|password|passwd|_auth|auth_?token|credential|key_id|access_key|session/i;

/** pass/gopass subcommands that print no secret; any other first word is a password's name. */
const PASS_QUIET = ['ls', 'list', 'find', 'search', 'init', 'insert', 'add', 'rm', 'remove', 'delete', 'mv', 'rename', 'cp', 'copy', 'git', 'help', 'version', 'edit', 'setup', 'sync', 'generate'];

const GIT_VALUE_OPTIONS = ['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix'];
const AWS_VALUE_OPTIONS = ['--profile', '--region', '--output', '--endpoint-url', '--query', '--cli-read-timeout', '--cli-connect-timeout', '--ca-bundle', '--color'];

/**
 * The built-in list. Exported so the sandbox profile, `policy explain` and docs/security.md
 * draw on one list.
 */
export const CREDENTIAL_COMMANDS: readonly CredentialCommand[] = Object.freeze([
  {
    program: 'git',
    what: 'the passwords git credential helpers store',
    valueOptions: GIT_VALUE_OPTIONS,
    // `git credential fill` asks every configured helper; `git credential-store get` asks one.
    prints: (ops, _argv, is) => (is(ops[0], 'credential') && is(ops[1], 'fill')) || (is(ops[0], /^credential-/) && is(ops[1], 'get')),
  },
  { program: /^git-credential-/, what: 'a password a git credential helper stores', prints: (ops, _a, is) => is(ops[0], 'get') },
  {
    program: 'gh',
    what: 'the GitHub CLI token',
    prints: (ops, argv, is) => is(ops[0], 'auth') && (is(ops[1], 'token') || (is(ops[1], 'status') && (hasFlag(argv, '--show-token') || hasShort(argv, 't')))),
  },
  {
    program: 'glab',
    what: 'the GitLab CLI token',
    prints: (ops, argv, is) => (is(ops[0], 'auth') && is(ops[1], 'status') && (hasFlag(argv, '--show-token') || hasShort(argv, 't'))) || (is(ops[0], 'config') && is(ops[1], 'get') && is(ops[2], 'token')),
  },
  {
    program: 'aws',
    what: 'AWS credentials or a stored secret',
    valueOptions: AWS_VALUE_OPTIONS,
    prints: (ops, argv, is) =>
      (is(ops[0], 'configure') && is(ops[1], 'get') && secretKey(ops[2], is)) ||
      (is(ops[0], 'configure') && is(ops[1], 'export-credentials')) ||
      (is(ops[0], 'ecr', 'ecr-public') && is(ops[1], 'get-login-password', 'get-authorization-token')) ||
      (is(ops[0], 'sts') && is(ops[1], 'get-session-token', 'assume-role', 'assume-role-with-web-identity', 'assume-role-with-saml', 'get-federation-token')) ||
      (is(ops[0], 'codeartifact') && is(ops[1], 'get-authorization-token')) ||
      (is(ops[0], 'sso') && is(ops[1], 'get-role-credentials')) ||
      (is(ops[0], 'iam') && is(ops[1], 'create-access-key', 'create-service-specific-credential', 'reset-service-specific-credential')) ||
      (is(ops[0], 'secretsmanager') && is(ops[1], 'get-secret-value', 'batch-get-secret-value')) ||
      (is(ops[0], 'ssm') && is(ops[1], 'get-parameter', 'get-parameters', 'get-parameters-by-path') && hasFlag(argv, '--with-decryption')),
  },
  {
    program: 'gcloud',
    what: 'a Google Cloud token or secret',
    prints: (ops, _a, is) =>
      (is(ops[0], 'auth') && (is(ops[1], 'print-access-token', 'print-identity-token') || (is(ops[1], 'application-default') && is(ops[2], 'print-access-token')))) ||
      (is(ops[0], 'secrets') && is(ops[1], 'versions') && is(ops[2], 'access')),
  },
  {
    program: 'az',
    what: 'an Azure token or Key Vault secret',
    prints: (ops, argv, is) =>
      (is(ops[0], 'account') && is(ops[1], 'get-access-token')) ||
      (is(ops[0], 'keyvault') && is(ops[1], 'secret') && is(ops[2], 'show', 'download')) ||
      (is(ops[0], 'acr') && is(ops[1], 'login') && hasFlag(argv, '--expose-token')) ||
      (is(ops[0], 'ad') && is(ops[1], 'sp') && (is(ops[2], 'create-for-rbac') || (is(ops[2], 'credential') && is(ops[3], 'reset')))),
  },
  { program: /^docker-credential-/, what: 'a registry password a Docker credential helper stores', prints: (ops, _a, is) => ops[0] === undefined || is.unknown(ops[0]) || (!ops[0].dynamic && !['list', 'version'].includes(ops[0].text)) },
  {
    program: 'kubectl',
    what: 'Kubernetes credentials or secrets',
    prints: (ops, argv, is) =>
      (is(ops[0], 'config') && is(ops[1], 'view') && hasFlag(argv, '--raw')) ||
      (is(ops[0], 'get') && is(ops[1], 'secret', 'secrets', /^secrets?\//)) ||
      (is(ops[0], 'create') && is(ops[1], 'token')),
  },
  { program: 'oc', what: 'the OpenShift token', prints: (ops, argv, is) => is(ops[0], 'whoami') && (hasFlag(argv, '--show-token') || hasShort(argv, 't')) },
  {
    program: 'security',
    what: 'a password from the macOS keychain',
    prints: (ops, argv, is) => (is(ops[0], 'find-generic-password', 'find-internet-password') && hasShort(argv, 'wg')) || (is(ops[0], 'dump-keychain') && hasShort(argv, 'd')),
  },
  {
    program: 'op',
    what: 'a 1Password secret',
    prints: (ops, argv, is) => is(ops[0], 'read', 'inject') || (is(ops[0], 'item', 'document') && is(ops[1], 'get')) || (is(ops[0], 'signin') && hasFlag(argv, '--raw')),
  },
  // `pass NAME` and `pass show NAME` print the password; only these subcommands do not.
  { program: 'pass', what: 'a password from the password store', prints: (ops, _a, is) => ops[0] !== undefined && (is.unknown(ops[0]) || (!ops[0].dynamic && !PASS_QUIET.includes(ops[0].text))) },
  { program: 'gopass', what: 'a password from the password store', prints: (ops, _a, is) => is(ops[0], 'show', 'cat', 'otp', 'totp') || (ops.length === 1 && (is.unknown(ops[0]) || (!ops[0]!.dynamic && !PASS_QUIET.includes(ops[0]!.text)))) },
  {
    program: 'vault',
    what: 'a HashiCorp Vault secret or token',
    prints: (ops, _a, is) => is(ops[0], 'read') || (is(ops[0], 'kv') && is(ops[1], 'get')) || (is(ops[0], 'print') && is(ops[1], 'token')) || (is(ops[0], 'token') && is(ops[1], 'create', 'lookup')),
  },
  { program: 'secret-tool', what: 'a secret from the desktop keyring', prints: (ops, _a, is) => is(ops[0], 'lookup') },
  { program: 'keyring', what: 'a secret from the system keyring', prints: (ops, _a, is) => is(ops[0], 'get') },
  // `bw unlock` and `bw login` print the session key that opens the vault.
  { program: 'bw', what: 'a Bitwarden secret', prints: (ops, _a, is) => is(ops[0], 'get', 'unlock', 'login') },
  { program: 'lpass', what: 'a LastPass secret', prints: (ops, _a, is) => is(ops[0], 'show') },
  { program: 'keepassxc-cli', what: 'a KeePassXC secret', prints: (ops, _a, is) => is(ops[0], 'show', 'clip') },
  { program: 'heroku', what: 'the Heroku API token', prints: (ops, _a, is) => is(ops[0], 'auth:token') },
  { program: /^(fly|flyctl)$/, what: 'the Fly.io token', prints: (ops, _a, is) => is(ops[0], 'auth') && is(ops[1], 'token') },
  { program: 'doppler', what: 'Doppler secrets', prints: (ops, _a, is) => is(ops[0], 'secrets') },
  { program: 'infisical', what: 'Infisical secrets', prints: (ops, _a, is) => is(ops[0], 'secrets', 'export') },
  { program: 'sops', what: 'a decrypted secrets file', prints: (_o, argv) => hasFlag(argv, '--decrypt') || hasShort(argv, 'd') },
  { program: 'ansible-vault', what: 'a decrypted vault file', prints: (ops, _a, is) => is(ops[0], 'view') },
  // BSD-style `e` (`ps eww`, `ps auxe`) prints each process's environment: the host's holds every secret bash withholds.
  { program: 'ps', what: "running processes' environments", prints: (_o, argv, is) => psShowsEnvironment(argv, is) },
  {
    program: /^(npm|pnpm|yarn)$/,
    what: 'a package registry token',
    prints: (ops, _a, is) => is(ops[0], 'config') && is(ops[1], 'get') && secretKey(ops[2], is),
  },
]);

function operands(argv: readonly Token[], valueOptions: readonly string[]): Token[] {
  const out: Token[] = [];
  for (let i = 1; i < argv.length; i++) {
    const t = argv[i]!;
    if (!t.dynamic && t.text.startsWith('-') && t.text !== '-') {
      if (t.text === '--') {
        out.push(...argv.slice(i + 1));
        break;
      }
      if (valueOptions.includes(t.text)) i++;
      continue;
    }
    out.push(t);
  }
  return out;
}

/** What a command's match says: it prints a credential, or may (depending on a run-time word). */
export interface CredentialMatch {
  what: string;
  /** False when only a word known at run time makes it match (`gh auth "$X"`). */
  certain: boolean;
}

/**
 * Whether a command (argv after wrappers; `name` is argv[0]'s basename) prints a stored credential.
 *
 * @example credentialCommand('gh', [{ text: 'gh', dynamic: false }, { text: 'auth', dynamic: false }, { text: 'token', dynamic: false }]) // { what: 'the GitHub CLI token', certain: true }
 */
export function credentialCommand(name: string, argv: readonly Token[]): CredentialMatch | undefined {
  const entry = CREDENTIAL_COMMANDS.find((c) => (typeof c.program === 'string' ? c.program === name : c.program.test(name)));
  if (entry === undefined) return undefined;
  const ops = operands(argv, entry.valueOptions ?? []);
  const matches = (t: Token, words: (string | RegExp)[]) => words.some((w) => (typeof w === 'string' ? w === t.text : w.test(t.text)));
  const certain: Is = Object.assign((t: Token | undefined, ...words: (string | RegExp)[]) => t !== undefined && !t.dynamic && matches(t, words), { unknown: () => false });
  const possible: Is = Object.assign((t: Token | undefined, ...words: (string | RegExp)[]) => t !== undefined && (t.dynamic || matches(t, words)), {
    unknown: (t: Token | undefined) => t?.dynamic === true,
  });
  if (entry.prints(ops, argv, certain)) return { what: entry.what, certain: true };
  if (argv.some((t) => t.dynamic) && entry.prints(ops, argv, possible)) return { what: entry.what, certain: false };
  return undefined;
}

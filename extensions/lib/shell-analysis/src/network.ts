import { FILE_SPECS } from './file-args.js';
import { parseArgs, type OptionSpec } from './options.js';
import type { Word } from './words.js';

/** The hosts a command talks to, as far as its arguments say. */
export interface NetworkUse {
  /** Hosts named literally: a URL's host, `user@host`, `host:path`. Lower case, without port or brackets. */
  hosts: string[];
  /** Source text of host operands only known at run time (`curl "$URL"`). */
  dynamic: string[];
}

/**
 * Why: a rule such as `net(*.example.com)` must cover `curl https://x.example.com` in bash, not
 * only tools that declare a `net` resource. Only well-known network programs are read, and only
 * what their arguments say: `git push origin` talks to a host the repository's configuration
 * names, which a parser cannot see (README: "What is not covered").
 */
type Operands =
  /** URLs, or bare `host.tld[/path]` (curl, wget, httpie). */
  | 'urls'
  /** The first operand is the destination, whatever it looks like (ssh aliases have no dot). */
  | 'destination'
  /** `[user@]host:path` or URLs among the operands (scp, rsync). */
  | 'remote-paths'
  /** git: URLs and `user@host:path` / `host.tld:path`, for the subcommands that talk to a remote. */
  | 'git';

const PROGRAMS: Readonly<Record<string, { options: OptionSpec; operands: Operands }>> = {
  curl: { options: FILE_SPECS.curl!.options, operands: 'urls' },
  wget: { options: FILE_SPECS.wget!.options, operands: 'urls' },
  http: { options: { short: 'aAfv', long: ['auth', 'auth-type', 'session', 'output', 'verify', 'cert', 'cert-key'], permute: true }, operands: 'urls' },
  https: { options: { short: 'aAfv', long: ['auth', 'auth-type', 'session', 'output', 'verify', 'cert', 'cert-key'], permute: true }, operands: 'urls' },
  xh: { options: { short: 'ao', long: ['auth', 'output', 'session', 'verify', 'cert', 'cert-key'], permute: true }, operands: 'urls' },
  aria2c: { options: { short: 'dioj', long: ['dir', 'input-file', 'out'], permute: true }, operands: 'urls' },
  ssh: { options: { short: 'BbcDEeFIiJLlmOopQRSWw' }, operands: 'destination' },
  telnet: { options: { short: 'bel' }, operands: 'destination' },
  ftp: { options: {}, operands: 'destination' },
  nc: { options: { short: 'ipsqwxXOIT' , permute: true }, operands: 'destination' },
  ncat: { options: { short: 'ipsqwxXOIT', permute: true }, operands: 'destination' },
  netcat: { options: { short: 'ipsqwxXOIT', permute: true }, operands: 'destination' },
  scp: { options: { short: 'cFiJlOoPS', permute: true }, operands: 'remote-paths' },
  sftp: { options: { short: 'BbcDFiJlOoPRSs' }, operands: 'destination' },
  rsync: { options: { short: 'eBfT', long: ['rsh', 'exclude', 'include', 'filter', 'exclude-from', 'include-from', 'files-from', 'password-file', 'log-file', 'port', 'temp-dir', 'partial-dir'], permute: true }, operands: 'remote-paths' },
  git: { options: { short: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'exec-path'] }, operands: 'git' },
};

const URL_HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)/i;
/** `[user@]host:path` as scp, rsync and git write it (a colon before any slash, not a Windows drive). */
const REMOTE_PATH = /^(?:[^@/:\s]+@)?([a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\]):(?!\/\/)/i;
/** `[user@]host[:port][/path]` written bare, as curl accepts it: a dotted name, localhost or an IPv6 literal. */
const BARE_HOST = /^(?:[^@/\s]+@)?([a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost|\[[0-9a-f:.]+\])(?::\d+)?(?:\/\S*)?$/i;
/** `[user@]host[:port]` as a destination (ssh, nc, telnet, sftp): any name, aliases included. */
const DESTINATION = /^(?:[^@/\s]+@)?([a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::[^/\s]*)?$/i;
/** git subcommands whose operands may name a remote by URL. */
const GIT_REMOTE_COMMANDS = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'remote', 'submodule', 'archive']);

/**
 * The hosts `argv` (wrappers stripped) reaches.
 *
 * @example networkUse('curl', words('curl -s https://api.example.com/v1')) // { hosts: ['api.example.com'], dynamic: [] }
 */
export function networkUse(name: string, words: Word[]): NetworkUse {
  const program = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined;
  const use: NetworkUse = { hosts: [], dynamic: [] };
  if (program === undefined) return use;
  const parsed = parseArgs(words, 1, program.options);
  // Without permutation parsing stops at the first operand: everything from there on is operands.
  let operands = program.options.permute ? parsed.operands : words.slice(parsed.stop);
  if (program.operands === 'git') {
    const sub = operands[0];
    if (!sub?.static || !GIT_REMOTE_COMMANDS.has(sub.text)) return use;
    operands = operands.slice(1);
  }
  const add = (host: string | undefined) => {
    const clean = host?.replace(/^\[|\]$/g, '').toLowerCase();
    if (clean && !use.hosts.includes(clean)) use.hosts.push(clean);
  };
  const considered = program.operands === 'destination' ? operands.slice(0, 1) : operands;
  for (const word of considered) {
    if (!word.static) {
      // A URL or destination in a variable; for scp, rsync and git a dynamic operand is as likely a local file.
      if (program.operands === 'urls' || program.operands === 'destination') use.dynamic.push(word.source);
      continue;
    }
    const text = word.text;
    const url = URL_HOST.exec(text);
    if (url) add(url[1]);
    else if (program.operands === 'urls') add(BARE_HOST.exec(text)?.[1]);
    else if (program.operands === 'destination') add(DESTINATION.exec(text)?.[1]);
    else {
      const remote = REMOTE_PATH.exec(text);
      // git: "fix: typo" in an unexpected place must not count; a remote is user@host:… or host.tld:…
      if (remote && (program.operands !== 'git' || text.includes('@') || remote[1]!.includes('.'))) add(remote[1]);
    }
  }
  return use;
}

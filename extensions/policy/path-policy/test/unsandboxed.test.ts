import { describe, expect, it } from 'vitest';
import { unsandboxedRisk } from '../src/index.js';

describe('without an OS sandbox, strings bash runs as code are asked about', () => {
  it('names each construct', () => {
    const risky = [
      'source /dev/stdin <<< "cat .env"',
      '. ./env.sh',
      'x=1 . f',
      'if true; then source x; fi',
      'trap "cat .env" EXIT; true',
      "PS4='$(cat .env)' bash -xc :",
      'BASH_ENV=s.sh bash -c true',
      'mapfile -C "cat .env #" -c 1 <<< a',
      'echo $((a[$(cat .env)]))',
      'hash -p /bin/cat x; x .env',
      "x='$(cat .env)'; echo \"${x@P}\"",
      'declare -n r=x',
      'echo ${!name}',
      'enable -f ./lib.so x',
      'base64 .e\\\nnv',
    ];
    for (const c of risky) expect(unsandboxedRisk(c), c).toBeDefined();
  });

  it('leaves ordinary commands alone', () => {
    for (const c of ['ls -la .', 'grep source f', 'echo hi', 'git status', 'while IFS= read -r l; do echo $l; done < f', 'echo ${arr[0]}', 'if [ -n "$(ls)" ]; then echo x; fi', 'npm test']) {
      expect(unsandboxedRisk(c), c).toBeUndefined();
    }
  });
});

describe('the subscript check reads a command once', () => {
  it('a 2 MB run of letters, names and brackets is judged at once, and a substitution in a subscript after it is still found', () => {
    // The old regex retried from every letter: minutes for this input (the CLI's 2 MB command hung).
    expect(unsandboxedRisk('a'.repeat(2_000_000))).toBeUndefined();
    expect(unsandboxedRisk('a['.repeat(1_000_000))).toBeUndefined();
    expect(unsandboxedRisk(`${'a['.repeat(1_000_000)}$(cat .env)]`)).toMatch(/subscript/);
    expect(unsandboxedRisk('echo a[1] $(date)')).toBeUndefined();
    expect(unsandboxedRisk('echo $((9[`date`]))')).toMatch(/subscript/);
  });
});

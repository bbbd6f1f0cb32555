import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every bash Airlock starts for a script of its own passes BASH_NO_STARTUP_FILES: with a socket on
 * stdin (Node's pipes) and no SHLVL, `bash -c` reads the person's ~/.bashrc (see
 * @airlock/toolkit/util's bash-flags.ts; packages/host/test/sandbox/launch.test.ts shows it with a
 * real bash). The person's own commands are theirs: the bash tool runs them with stdin closed.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function sources(): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'test') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts') && path.includes('/src/')) found.push(path);
    }
  };
  visit(join(ROOT, 'packages'));
  visit(join(ROOT, 'extensions'));
  return found;
}

/** A bash started with a literal script: `'bash', ['-c'`, `'/bin/bash', '-c'`, `['/bin/bash', '-c'`. */
const STARTS_BASH = /['"](?:\/bin\/|\/usr\/bin\/)?bash['"],\s*\[?\s*['"]-c['"]/;

describe("bash started by Airlock never reads the person's startup files", () => {
  it('the pattern finds a bash started without the flags', () => {
    expect(STARTS_BASH.test(`spawn('bash', ['-c', SCRIPT])`)).toBe(true);
    expect(STARTS_BASH.test(`return ['/bin/bash', '-c', script]`)).toBe(true);
    expect(STARTS_BASH.test(`spawn('bash', [...BASH_NO_STARTUP_FILES, '-c', SCRIPT])`)).toBe(false);
  });

  it('no source file starts one', () => {
    const bare = sources().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (STARTS_BASH.test(line) && !line.trimStart().startsWith('*') && !line.trimStart().startsWith('//') ? [`${relative(ROOT, file)}:${i + 1}`] : [])),
    );
    expect(bare, "start it with [...BASH_NO_STARTUP_FILES, '-c', …] from @airlock/toolkit/util").toEqual([]);
  });
});

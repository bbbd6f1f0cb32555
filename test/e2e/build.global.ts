import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The e2e tests run the real binary, which runs the built CLI bundle: build it once first. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['packages/cli/scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
}

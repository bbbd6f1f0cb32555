import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The e2e tests run the real binary, which runs the built CLI: build the workspace once first. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-b'], { cwd: root, stdio: 'inherit' });
}

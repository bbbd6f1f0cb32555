import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The e2e tests run the real binary, which runs the built CLI bundle, and the SDK from dist: build them once first. */
export default function setup(): void {
  // `pnpm test:all` builds before vitest starts: building again here would only repeat the bundles.
  if (process.env.AIRLOCK_TESTS_BUILT === '1') return;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['packages/cli/scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
  // The SDK's compiled-in default extensions: a stale file would run old extension code in the SDK's tests.
  execFileSync(process.execPath, ['packages/sdk/scripts/bundle-builtins.mjs'], { cwd: root, stdio: 'inherit' });
}

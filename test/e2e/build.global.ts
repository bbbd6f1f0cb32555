import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/** The e2e tests run the real binary, which runs the built CLI bundle, and the SDK from dist: build them once first. */
export default function setup(project: TestProject): () => void {
  // The folder the files that need Airlock's tarballs share (packed.ts packs into it once).
  const packedDir = mkdtempSync(join(tmpdir(), 'airlock-packed-'));
  project.provide('packedDir', packedDir);
  const teardown = () => rmSync(packedDir, { recursive: true, force: true });
  // `pnpm test:all` builds before vitest starts: building again here would only repeat the bundles.
  if (process.env.AIRLOCK_TESTS_BUILT === '1') return teardown;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['packages/cli/scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
  // The SDK's compiled-in default extensions: a stale file would run old extension code in the SDK's tests.
  execFileSync(process.execPath, ['packages/sdk/scripts/bundle-builtins.mjs'], { cwd: root, stdio: 'inherit' });
  return teardown;
}

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { scaledMs } from '@airlock/kernel/testing';
import { ROOT } from './harness.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty folder made by the global setup for this run's tarballs (see packedTarballs). */
    packedDir: string;
  }
}

/**
 * The tarballs `scripts/pack.mjs` makes, packed once per test run however many files need them
 * (install-packed, registry): packing compiles every extension with tsc, about half a minute on
 * two cores, and the files run at the same time. The first caller packs into the folder the
 * global setup made; the others wait for its marker. Never blocks the event loop (a Verdaccio may
 * be answering from it).
 *
 * @example const tarballs = await packedTarballs(); readdirSync(tarballs) // ['airlock-cli-1.0.0.tgz', …]
 */
export async function packedTarballs(): Promise<string> {
  const dir = inject('packedDir');
  // The markers live beside the tarballs' folder, so a listing of it holds tarballs only.
  const tarballs = join(dir, 'tarballs');
  const done = join(dir, '.packed');
  const failed = join(dir, '.failed');
  try {
    mkdirSync(join(dir, '.packing'));
  } catch {
    // Another file is packing (or has packed): wait for its outcome.
    const until = Date.now() + scaledMs(300_000);
    while (!existsSync(done) && !existsSync(failed)) {
      if (Date.now() > until) throw new Error(`scripts/pack.mjs did not finish in ${dir}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
    return tarballs;
  }
  const outcome = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [join(ROOT, 'scripts/pack.mjs'), tarballs], { cwd: ROOT, env: process.env, timeout: scaledMs(300_000), maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : 1, stderr }),
    );
  });
  if (outcome.code !== 0) {
    writeFileSync(failed, `scripts/pack.mjs failed:\n${outcome.stderr}`);
    throw new Error(`scripts/pack.mjs failed:\n${outcome.stderr}`);
  }
  writeFileSync(done, '');
  return tarballs;
}

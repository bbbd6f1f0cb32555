import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built JavaScript of a workspace source file, for a test that starts a Node process on it:
 * `<package>/src/x.ts` → `<package>/dist/x.js`. A child run on the TypeScript through jiti spent
 * about a second of CPU transpiling the kernel and its helpers at every start; the build is
 * plain ESM that Node loads at once (`pnpm test` builds first). A missing build is an error
 * that says how to make one, not a child that fails somewhere else.
 *
 * @example
 * const writer = builtFile(new URL('../src/writer.ts', import.meta.url)); // …/audit-log/dist/writer.js
 * spawn(process.execPath, [script], …) // where script imports `writer`
 */
export function builtFile(source: URL | string): string {
  const path = typeof source === 'string' ? source : fileURLToPath(source);
  const match = /^(.*)[\\/]src[\\/](.*)\.ts$/.exec(path);
  if (match === null) throw new Error(`builtFile: ${path} is not a .ts file under a package's src/ folder.`);
  const built = `${match[1]}/dist/${match[2]}.js`;
  if (!existsSync(built)) throw new Error(`${built} is missing: this test starts a process on the built package. Run \`pnpm build\` first (\`pnpm test\` does).`);
  return built;
}

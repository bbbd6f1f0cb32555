import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { displayText } from '@airlock/toolkit/display';
import { KERNEL_VERSION } from '@airlock/kernel';
import { cliPackageDir, namesOf, packageNameProblem, scaffold } from '../extensions/scaffold.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/**
 * `airlock extensions new <name> --tool|--policy [--dir DIR]`: a package with a manifest, its
 * TypeScript source, a test that passes as generated, a README and a tsconfig (templates/ in this
 * package). `@airlock/contract` (its types) and `@airlock/kernel` (for `@airlock/kernel/testing`)
 * are not on a registry yet: the package points at those of the Airlock that made it, as `file:`
 * paths (its README says how to switch to version ranges once they are published).
 */
export async function extensionsNewCommand(o: { name: string; tool?: boolean; policy?: boolean; dir?: string }, g: GlobalOptions, io: IO): Promise<number> {
  if (o.tool !== true && o.policy !== true) throw new UsageError('Say what to make: --tool (a package that adds a tool) or --policy (one that judges calls).', `Example: airlock extensions new ${o.name} --tool`);
  const problem = packageNameProblem(o.name);
  if (problem !== undefined) throw new UsageError(`"${displayText(o.name, { maxChars: 200 })}" is not a package name: ${problem}.`, 'Example: airlock extensions new airlock-word-count --tool');
  const { extension, tool } = namesOf(o.name);
  const target = resolve(io.cwd, g.cwd ?? '.', o.dir ?? extension);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new UsageError(`${displayText(target, { maxChars: 300 })} already exists and is not empty; nothing was written.`, 'Give a new or empty folder with --dir, or another name.');
  }
  const kernelDir = packageDir('@airlock/kernel');
  // The contract (what the new package's source compiles against) from the same Airlock.
  const contractDir = packageDir('@airlock/contract');
  const words = {
    PACKAGE: o.name,
    EXTENSION: extension,
    TOOL: tool,
    KERNEL_RANGE: `^${KERNEL_VERSION.split('.')[0]}.0.0`,
    KERNEL_DEPENDENCY: `file:${relative(target, kernelDir).split(sep).join('/')}`,
    CONTRACT_DEPENDENCY: `file:${relative(target, contractDir).split(sep).join('/')}`,
    TYPEBOX: typeboxVersion(),
  };
  const files = await scaffold(o.policy === true ? 'policy' : 'tool', target, words);
  if (g.json) {
    io.stdout.write(`${JSON.stringify({ dir: target, package: o.name, kind: o.policy ? 'policy' : 'tool', ...(o.policy ? {} : { tool }), kernel: words.KERNEL_DEPENDENCY, files })}\n`);
    return EXIT.ok;
  }
  const where = relative(io.cwd, target) || '.';
  io.stdout.write(
    [
      `Made ${displayText(o.name)} (${o.policy ? 'a policy' : `a tool: ${tool}`}) in ${displayText(target)}:`,
      ...files.map((f) => `  ${f}`),
      '',
      'Next:',
      `  cd ${displayText(where)} && npm install && npm test`,
      `  airlock extensions add ${displayText(target)}   (run in your project), or name that folder in your settings' "extensions"`,
      '',
      kernelNote(kernelDir, words.KERNEL_DEPENDENCY),
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

/**
 * Where the scaffold's kernel comes from. An installed CLI carries a built kernel; a clone's
 * packages/kernel has no dist/ until `pnpm build`, and `npm test` in the new package would then
 * fail on a missing module, so say so now.
 */
function kernelNote(kernelDir: string, dependency: string): string {
  const where = `@airlock/kernel comes from ${displayText(kernelDir)} (${displayText(dependency)})`;
  if (existsSync(join(kernelDir, 'dist', 'index.js'))) return `${where}, the kernel of this airlock.`;
  return `${where}, which is not built: run \`pnpm build\` in that Airlock clone before \`npm install\`.`;
}

/** An Airlock package this CLI runs: its real folder (the workspace's packages/kernel, or an install's node_modules/@airlock/kernel). */
function packageDir(name: '@airlock/kernel' | '@airlock/contract'): string {
  const require = createRequire(join(cliPackageDir(), 'package.json'));
  return dirname(realpathSync(require.resolve(`${name}/package.json`)));
}

function typeboxVersion(): string {
  const pkg = JSON.parse(readFileSync(join(cliPackageDir(), 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  return pkg.dependencies?.typebox ?? '1.4.3';
}

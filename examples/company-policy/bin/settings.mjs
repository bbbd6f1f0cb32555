#!/usr/bin/env node
// Prints the pack's settings (../settings.json) with `{{pack}}` replaced by the folder this pack
// is installed in, ready to be put in the user's Airlock settings (see ../README.md, "Rolling it
// out"). The hook command and the MCP server's path must be absolute: a package cannot carry
// settings, and a relative path would be read from whichever project Airlock runs in.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The settings with every `{{pack}}` replaced by `packDir`.
 *
 * @example packSettings('/home/ana/.config/airlock/extensions/node_modules/airlock-company-policy')
 */
export function packSettings(packDir) {
  // The path goes into a shell command between double quotes: refuse what would end or expand it.
  if (/["$`\\\n]/.test(packDir)) {
    throw new Error(`The pack is installed in ${JSON.stringify(packDir)}, whose name holds a quote, "$", a backquote, a backslash or a newline; the hook command could not name it safely. Install it in a folder without those characters.`);
  }
  const template = readFileSync(new URL('../settings.json', import.meta.url), 'utf8');
  const filled = JSON.parse(template, (_key, value) => (typeof value === 'string' ? value.replaceAll('{{pack}}', packDir) : value));
  return filled;
}

if (import.meta.url === `file://${process.argv[1] === undefined ? '' : realpathSync(process.argv[1])}`) {
  try {
    const packDir = realpathSync(fileURLToPath(new URL('..', import.meta.url))).replace(/\/$/, '');
    process.stdout.write(`${JSON.stringify(packSettings(packDir), null, 2)}\n`);
  } catch (error) {
    process.stderr.write(`airlock-company-policy: ${error.message}\n`);
    process.exit(2);
  }
}

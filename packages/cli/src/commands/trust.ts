import { resolve } from 'node:path';
import { defaultTrustFile, setTrust } from '@airlock/host';
import { homedir } from 'node:os';
import { displayText } from '@airlock/toolkit/display';
import { EXIT, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/** `airlock trust [dir]`: remember (per user) that a project folder and its subfolders are trusted. */
export async function trustCommand(o: { dir?: string; revoke?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  const dir = resolve(io.cwd, g.cwd ?? '.', o.dir ?? '.');
  const entry = await setTrust(dir, !o.revoke, { trustFile: defaultTrustFile(io.env, io.env.HOME ?? homedir()) });
  if (g.json) io.stdout.write(`${JSON.stringify(entry)}\n`);
  else
    io.stdout.write(
      o.revoke
        ? `Untrusted: ${displayText(entry.path)}. Its settings may no longer load extensions.\n`
        : `Trusted: ${displayText(entry.path)} and its subfolders. Their settings may load extensions (code that runs with your permissions).\n`,
    );
  return EXIT.ok;
}

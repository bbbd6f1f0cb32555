import { join } from 'node:path';
import type { IO } from '../src/index.js';

/** An in-process IO: buffers for output, a home of its own so nothing real is read or written. */
export function testIO(cwd: string, home: string): IO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    readStdin: async () => '',
    isTTY: false,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') },
    cwd,
    out: () => out,
    err: () => err,
  };
}

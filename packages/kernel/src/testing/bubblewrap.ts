import { execFileSync } from 'node:child_process';

let works: boolean | undefined;

/**
 * Whether bubblewrap can build a sandbox on this machine, found by running it once (a container
 * may have the binary but forbid namespaces). For tests that need the OS sandbox to skip with a
 * reason where it cannot exist.
 *
 * @example
 * it.skipIf(!bubblewrapWorks())('a secret stays hidden inside the sandbox', async () => { … });
 */
export function bubblewrapWorks(): boolean {
  if (works === undefined) {
    try {
      execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--', 'true'], { stdio: 'ignore', timeout: 5000 });
      works = true;
    } catch {
      works = false;
    }
  }
  return works;
}

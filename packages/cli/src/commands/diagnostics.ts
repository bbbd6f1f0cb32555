import type { Host } from '@airlock/host';
import { displayText } from '@airlock/kernel';
import type { IO } from '../io.js';

/**
 * Tell the user, on stderr, what went wrong while loading — before any call runs. Extensions of
 * the default set that are not installed yet are summed up in one line rather than eleven.
 */
export function reportDiagnostics(host: Host, io: IO): void {
  const notInstalled = host.diagnostics.filter((d) => d.code === 'AIRLOCK_EXTENSION_NOT_INSTALLED');
  if (notInstalled.length > 0) {
    const names = notInstalled.map((d) => d.extension).filter((n): n is string => n !== undefined);
    io.stderr.write(`airlock: ${notInstalled.length} default extension${notInstalled.length === 1 ? ' is' : 's are'} not installed yet (${names.map((n) => show(n)).join(', ')}); running without them.\n`);
  }
  for (const d of host.diagnostics) {
    if (d.code === 'AIRLOCK_EXTENSION_NOT_INSTALLED') continue;
    const fix = d.fix !== undefined && !d.message.includes(d.fix) ? `  fix: ${show(d.fix)}\n` : '';
    io.stderr.write(`airlock: ${d.severity}: ${show(d.message)}\n${fix}`);
  }
  // The host refuses every call then; say why once, up front, rather than only in each result.
  if (host.blocked !== undefined) io.stderr.write(`airlock: error: ${show(host.blocked.message)}\n`);
}

/** A diagnostic may quote a project's settings (extension names, paths, tool names): shown, never interpreted. */
function show(text: string): string {
  return displayText(text, { multiline: true, maxChars: 2000 });
}

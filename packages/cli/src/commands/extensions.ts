import { KERNEL_VERSION } from '@airlock/kernel';
import { countOf, displayText } from '@airlock/toolkit/display';
import { table } from '../format.js';
import { blockedHeadline, blocks, withFixLine, withoutFix } from './diagnostics.js';
import { EXIT, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';

/**
 * `airlock extensions`: each extension the settings name (or the default set): version, where it
 * was found, which settings layer named it, its kernel range and whether this kernel satisfies it,
 * what it provides, and every diagnostic about it. Exits 2 (a load error) when any extension
 * failed to load or no tool may run, so scripts and CI notice a broken setup; 0 otherwise.
 */
export async function extensionsCommand(g: GlobalOptions, io: IO): Promise<number> {
  const host = await openSession(g, io);
  try {
    const records = host.extensions.extensions;
    const failed = host.blocked !== undefined || records.some((r) => r.status === 'failed');
    const exit = failed ? EXIT.usage : EXIT.ok;
    const diagnosticsOf = (name: string, spec: string) =>
      host.diagnostics.filter((d) => d.extension === name || d.extension === spec).map((d) => ({ code: d.code, severity: d.severity, message: d.message, ...(d.fix ? { fix: d.fix } : {}) }));
    if (g.json) {
      io.stdout.write(
        `${JSON.stringify({
          kernelVersion: KERNEL_VERSION,
          blocked: host.blocked ?? null,
          extensions: records.map((r) => ({ ...r, diagnostics: diagnosticsOf(r.name, r.spec) })),
          diagnostics: host.diagnostics,
        })}\n`,
      );
      return exit;
    }
    const rows = [['EXTENSION', 'VERSION', 'STATUS', 'LAYER', 'KERNEL', 'PROVIDES', 'SOURCE']];
    for (const r of records) {
      const kernel = r.kernelRange === undefined ? '' : `${r.kernelRange}${r.compatible === false ? ' (incompatible)' : ''}`;
      const provides = [...r.tools.map((t) => `tool ${t}`), ...r.hooks.map((h) => `${h.hook}/${h.phase}`)].join(', ');
      const source = r.source === undefined ? r.spec : r.source.dir;
      rows.push([r.name, r.version ?? '', r.status, r.layer, kernel, provides, source]);
    }
    io.stdout.write(table(rows));
    io.stdout.write(`\nkernel ${KERNEL_VERSION}; ${host.extensions.loaded.length} of ${countOf(records.length, 'extension')} loaded.\n`);
    // A blocking extension's fix is part of the block's, so it is said once, at the end.
    for (const d of host.diagnostics) io.stdout.write(`\n${d.severity}: ${show(blocks(host, d) ? withoutFix(d) : withFixLine(d))}\n`);
    if (host.blocked) {
      const headline = blockedHeadline(host.blocked).replace(/^No tool may run: /, '');
      const fix = host.blocked.fix.replace(/ Run `airlock extensions` for every detail\.$/, ''); // this is that command
      io.stdout.write(`\nNO TOOL WILL RUN: ${show(headline)}\nFix: ${show(fix)}\n`);
    }
    return exit;
  } finally {
    await host.close();
  }
}

/** Diagnostics quote a project's settings (names, paths), each value escaped where it was worded: shown, never interpreted, never escaped twice. */
function show(text: string): string {
  return displayText(text, { multiline: true, maxChars: 2000, escaped: true });
}

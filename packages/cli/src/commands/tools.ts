import { countOf, displayText } from '@airlock/toolkit/display';
import { toProviderTools, type ProviderId } from '@airlock/toolkit';
import { table } from '../format.js';
import { EXIT, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { reportDiagnostics, showWorded } from './diagnostics.js';

/**
 * `airlock tools`: the three tool sets — every registered tool, the enabled set (with the reason
 * for each tool left out), and with --provider the exact definitions one API receives. A blocked
 * host (a policy extension or a named extension failed) is said in every form, and exits 2: its
 * tools are enabled, and none of them can run.
 */
export async function toolsCommand(o: { provider?: ProviderId }, g: GlobalOptions, io: IO): Promise<number> {
  const host = await openSession(g, io);
  try {
    if (o.provider !== undefined) {
      io.stdout.write(`${JSON.stringify(toProviderTools(host.selection, o.provider), null, g.json ? undefined : 2)}\n`);
      return EXIT.ok;
    }
    const registry = host.kernel.registry.list().map((entry) => ({
      name: entry.tool.name,
      label: entry.tool.label,
      source: entry.source,
      ...(entry.origin === undefined ? {} : { origin: entry.origin }),
      enabled: host.selection.has(entry.tool.name),
      ...(host.selection.has(entry.tool.name) ? {} : { excluded: host.selection.excluded.get(entry.tool.name)?.map((r) => r.text) ?? [] }),
    }));
    if (g.json) {
      io.stdout.write(`${JSON.stringify({ tools: registry, enabled: [...host.selection.enabledNames], warnings: host.selection.warnings, blocked: host.blocked ?? null })}\n`);
      return host.blocked === undefined ? EXIT.ok : EXIT.usage;
    }
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    const blocked = host.blocked;
    if (registry.length === 0) {
      io.stdout.write('No tools are registered. Add extensions to your settings (see `airlock extensions`).\n');
      return blocked === undefined ? EXIT.ok : EXIT.usage;
    }
    const rows = [['TOOL', 'SOURCE', 'ENABLED', 'WHY NOT / ORIGIN']];
    for (const t of registry) rows.push([t.name, t.source, !t.enabled ? 'no' : blocked === undefined ? 'yes' : 'blocked', t.enabled ? (t.origin ?? '') : (t.excluded ?? []).join('; ')]);
    io.stdout.write(table(rows));
    if (blocked === undefined) {
      io.stdout.write(`\n${host.selection.enabled.length} of ${countOf(registry.length, 'tool')} enabled.\n`);
      return EXIT.ok;
    }
    // Names come as written in settings; the reason and fix were worded with each value escaped already.
    const name = (e: string) => `"${displayText(e)}"`;
    const which = blocked.extensions.length > 1 ? `extensions ${blocked.extensions.map(name).join(', ')}` : `extension ${name(blocked.extension)}`;
    io.stdout.write(`\nNo tool can run: the ${which} failed to load (${showWorded(blocked.reason)}), so every call is refused. ${host.selection.enabled.length} of ${countOf(registry.length, 'tool')} would be enabled. Fix: ${showWorded(blocked.fix)}\n`);
    return EXIT.usage;
  } finally {
    await host.close();
  }
}

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Host } from '@airlock/host';
import { KERNEL_VERSION } from '@airlock/kernel';
import { countOf, displayText } from '@airlock/toolkit/display';
import { table } from '../format.js';
import { EXIT, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { projectStateDir } from '@airlock/toolkit/util';
import { openSession } from '../session.js';
import { blockedHeadline, blocks, showWorded, withoutFix } from './diagnostics.js';
import { CLI_VERSION } from '../version.js';

/** One thing worth fixing, with its fix: a diagnostic, or the host's block. */
interface Problem {
  severity: 'error' | 'warning' | 'info';
  message: string;
  fix?: string;
}

/** What `airlock doctor` reports, the same in text and JSON. */
export interface DoctorReport {
  version: string;
  kernelVersion: string;
  project: string;
  trust: { trusted: boolean; reason: string } | null;
  settingsFiles: { layer: string; file: string; exists: boolean }[];
  sandbox: { active: boolean; mode: string; said: string };
  auditLog: string | null;
  extensions: { name: string; layer: string; version: string | null; state: string }[];
  blocked: NonNullable<Host['blocked']> | null;
  problems: Problem[];
}

/**
 * `airlock doctor`: the state of this folder's Airlock on one screen — version and kernel, trust,
 * settings files, the sandbox, where the audit log goes, each extension with its layer, version
 * and state, and every problem with its fix. Exits 2 when no tool can run or an error was found,
 * so a script or CI can ask "is this setup healthy?"; 0 otherwise.
 */
export async function doctorCommand(g: GlobalOptions, io: IO): Promise<number> {
  const host = await openSession(g, io);
  try {
    const report = doctorReport(host, io);
    const healthy = report.blocked === null && !report.problems.some((p) => p.severity === 'error');
    if (g.json) io.stdout.write(`${JSON.stringify(report)}\n`);
    else io.stdout.write(render(report));
    return healthy ? EXIT.ok : EXIT.usage;
  } finally {
    await host.close();
  }
}

function doctorReport(host: Host, io: IO): DoctorReport {
  const project = host.trust?.projectDir ?? resolve(io.cwd);
  const files = [
    { layer: 'user', file: host.settings.userFile },
    ...host.settings.layers.filter((l) => l.name !== 'user' && l.file !== undefined).map((l) => ({ layer: l.name, file: l.file! })),
    { layer: 'local', file: host.settings.localFile },
  ];
  // A file named by two layers is shown once, under the first.
  const byFile = new Map<string, { layer: string; file: string }>();
  for (const f of files) if (!byFile.has(f.file)) byFile.set(f.file, f);
  const settingsFiles = [...byFile.values()].map((f) => ({ ...f, exists: existsSync(f.file) }));
  const status = host.sandbox.service.status;
  // A diagnostic of an extension that blocks every tool gives its fix through the block's, said once.
  const problems: Problem[] = host.diagnostics.map((d) => ({ severity: d.severity, message: withoutFix(d), ...(d.fix === undefined || blocks(host, d) ? {} : { fix: d.fix }) }));
  return {
    version: CLI_VERSION,
    kernelVersion: KERNEL_VERSION,
    project,
    trust: host.trust === undefined ? null : { trusted: host.trust.trusted, reason: host.trust.reason },
    settingsFiles,
    sandbox: { active: status.active, mode: status.mode, said: status.active ? 'active: commands and servers run in bubblewrap' : status.mode === 'off' ? 'off (sandbox.mode "off")' : `none: ${status.problem ?? 'not available'}` },
    auditLog: auditLogPath(host, project, io),
    extensions: host.extensions.extensions.map((r) => ({ name: r.name, layer: r.layer, version: r.version ?? null, state: r.status })),
    blocked: host.blocked ?? null,
    problems,
  };
}

/**
 * Where audit-log writes for this project: its default place, or its `path` option as the settings
 * give it (audit-log reads it: `~/` is the home folder, a relative path the project's); null when
 * it is not loaded. The CLI imports no extension, so it does not resolve the option itself.
 */
function auditLogPath(host: Host, project: string, io: IO): string | null {
  const loaded = host.extensions.extensions.some((r) => r.spec === '@airlock/audit-log' && r.status === 'loaded');
  if (!loaded) return null;
  const option = host.settings.extensions.find((e) => e.spec === '@airlock/audit-log' && e.enabled)?.options.path;
  if (typeof option === 'string') return `${option} (the audit-log "path" option)`;
  return join(projectStateDir('audit', project, { env: io.env, home: io.env.HOME ?? homedir() }), 'audit.jsonl');
}

function render(r: DoctorReport): string {
  // Paths and names come raw; messages, reasons and fixes were worded with each value escaped already (showWorded).
  const show = (text: string) => displayText(text, { maxChars: 2000 });
  const lines = [
    `Airlock ${r.version} (kernel ${r.kernelVersion})`,
    `Project:    ${show(r.project)}${r.trust === null ? '' : `, ${r.trust.trusted ? 'trusted' : 'not trusted'} (${showWorded(r.trust.reason)})`}`,
    `Sandbox:    ${showWorded(r.sandbox.said)} (sandbox.mode "${r.sandbox.mode}")`,
    `Audit log:  ${r.auditLog === null ? 'none (@airlock/audit-log is not loaded)' : show(r.auditLog)}`,
    'Settings:',
    ...r.settingsFiles.map((f) => `  ${f.layer.padEnd(8)} ${show(f.file)}${f.exists ? '' : ' (none)'}`),
    '',
    table([['EXTENSION', 'LAYER', 'VERSION', 'STATE'], ...r.extensions.map((e) => [e.name, e.layer, e.version ?? '', e.state])]).trimEnd(),
    '',
  ];
  if (r.blocked !== null) lines.push(`NO TOOL CAN RUN: ${showWorded(blockedHeadline(r.blocked).replace(/^No tool may run: /, ''))}`, `  Fix: ${showWorded(r.blocked.fix)}`, '');
  for (const p of r.problems) lines.push(`${p.severity}: ${showWorded(p.message)}`, ...(p.fix === undefined ? [] : [`  Fix: ${showWorded(p.fix)}`]), '');
  const count = (severity: Problem['severity'], word: string) => countOf(r.problems.filter((p) => p.severity === severity).length, word);
  lines.push(r.problems.length === 0 ? 'No problems found.' : `${count('error', 'error')}, ${count('warning', 'warning')}.`);
  return `${lines.join('\n').trimEnd()}\n`;
}

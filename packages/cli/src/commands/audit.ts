import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { loadSettings } from '@airlock/host';
import { countOf, displayText } from '@airlock/kernel';
import type { VerifyReport } from '@airlock/audit-log/cli';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../main.js';

const AUDIT_PACKAGE = '@airlock/audit-log';

/**
 * The audit log's reader is imported when an audit command runs, not when the CLI starts: the
 * other commands never pay for it, and a CLI built with tsc alone (no bundle, where the package's
 * TypeScript source cannot load under plain Node) still runs every other command.
 */
const auditLog = () => import('@airlock/audit-log/cli');

/** `airlock audit verify|tail`. */
export function registerAudit(program: Command, io: IO, done: (code: number) => void): void {
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;
  const audit = program.command('audit').description('check and read the audit log: verify its hash chain, show the last records');
  audit
    .command('verify')
    .description("check the hash chain and report the first broken link (exit 1); default: this project's log folder")
    .argument('[target]', 'an audit log file, or a folder: every rotated set in it, oldest file first')
    .option('--no-head', 'check the chain only, not whether it ends where its head says (a copied or archived log)')
    .action(async (target: string | undefined, opts: { head: boolean }, cmd: Command) =>
      done(await auditVerifyCommand({ ...(target === undefined ? {} : { target }), head: opts.head }, globals(cmd), io)),
    );
  audit
    .command('tail')
    .description('show the last records of the audit log, one line each (--json: the raw JSON lines)')
    .argument('[file]', "the log file (default: this project's active log)")
    .addOption(new Option('-n, --lines <n>', 'how many records').argParser(positiveInt).default(20))
    .option('-f, --follow', 'keep printing records as they are written, across rotation, until Ctrl-C')
    .action(async (file: string | undefined, opts: { lines: number; follow?: boolean }, cmd: Command) =>
      done(await auditTailCommand({ ...(file === undefined ? {} : { file }), lines: opts.lines, follow: opts.follow === true }, globals(cmd), io)),
    );
}

/**
 * `airlock audit verify [target]`: check the hash chain of a log file, or of every rotated set in a
 * folder, and that each chain ends where its head (kept in the user's state folder) says; report
 * the first broken link. Exit 0 when intact, 1 when broken, 2 when there is nothing to check.
 * `head: false` (`--no-head`) checks the chain alone.
 */
export async function auditVerifyCommand(o: { target?: string; head?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  // Without a target: this project's folder, so the whole rotated set is checked in order.
  const target = o.target === undefined ? dirname(await projectLog(g, io)) : resolve(cwdOf(g, io), o.target);
  const reader = await auditLog();
  const heads = reader.headsDir({ env: io.env, home: io.env.HOME ?? homedir() });
  const results = reader.verifyAuditLog(target, o.head === false ? {} : { headsDir: heads });
  const reports: VerifyReport[] = [];
  for (const result of results) {
    if (result.kind === 'unreadable') throw new UsageError(result.message, result.fix);
    reports.push(result.report);
  }
  const ok = reports.every((r) => r.ok);
  if (g.json) io.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : { ok, sets: reports })}\n`);
  else for (const report of reports) io.stdout.write(describe(report));
  return ok ? EXIT.ok : EXIT.outcome;
}

/** `airlock audit tail [file] [-n N]`: the last records, one line each (or the raw JSON lines with --json). */
export async function auditTailCommand(o: { file?: string; lines: number; follow?: boolean; signal?: AbortSignal }, g: GlobalOptions, io: IO): Promise<number> {
  const target = o.file === undefined ? await projectLog(g, io) : resolve(cwdOf(g, io), o.file);
  const { followAuditLog, tailAuditLog, formatRecord } = await auditLog();
  const print = (line: { text: string; record: Parameters<typeof formatRecord>[0] }) =>
    void io.stdout.write(`${g.json ? line.text : formatRecord(line.record, line.text)}\n`);
  const result = tailAuditLog(target, o.lines);
  // Following a log that does not exist yet is fine: the first call of the run creates it.
  if (result.kind === 'unreadable' && !o.follow) throw new UsageError(result.message, result.fix);
  if (result.kind === 'lines') for (const line of result.lines) print(line);
  if (!o.follow) return EXIT.ok;
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  o.signal?.addEventListener('abort', onInterrupt, { once: true });
  try {
    await followAuditLog(target, print, stop.signal);
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
  return EXIT.ok;
}

/** Paths and messages in a report may quote the log's own (possibly tampered) contents: shown, never interpreted. */
function describe(report: VerifyReport): string {
  const show = (text: string) => displayText(text, { maxChars: 1000 });
  const files = report.files.length === 1 ? show(report.files[0]!.path) : `${report.files.length} files (${report.files.map((f) => show(f.path)).join(', ')})`;
  const notes = report.notes.map((n) => `  note: ${show(n)}\n`).join('');
  if (report.broken === undefined) {
    const checked = report.headFile === undefined ? '' : `; ends where its head says (${show(report.headFile)})`;
    return `intact: ${countOf(report.records, 'record')} in ${files}; chain from ${show(report.anchor)}, head ${show(report.head ?? '(empty)')}${checked}\n${notes}`;
  }
  const b = report.broken;
  return `BROKEN (${b.kind}) at ${b.line === undefined ? '' : `line ${b.line} of `}${show(b.file)}:\n  ${show(b.message)}\n${notes}`;
}

function cwdOf(g: GlobalOptions, io: IO): string {
  return resolve(io.cwd, g.cwd ?? '.');
}

/**
 * The active log of this project: the audit-log `path` option when settings give one, else the
 * default location in the user's state folder. Project code configs are not run for this (only
 * data settings files are read), because looking at a log must not execute anything.
 */
async function projectLog(g: GlobalOptions, io: IO): Promise<string> {
  const cwd = cwdOf(g, io);
  const home = io.env.HOME ?? homedir();
  const settings = await loadSettings({ cwd, settingsFile: g.settings, env: io.env, homeDir: home, trustProjectCode: () => false });
  const entry = settings.extensions.filter((e) => e.spec === AUDIT_PACKAGE && e.enabled !== false).at(-1);
  const path = (entry?.options as { path?: unknown } | undefined)?.path;
  return (await auditLog()).resolveAuditPath(typeof path === 'string' ? path : undefined, cwd, { env: io.env, home });
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('Give a whole number ≥ 1.');
  return n;
}

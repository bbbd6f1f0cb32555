import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Type } from 'typebox';
import type { CommandDefinition, CommandInput } from '@airlock/contract';
import { countOf, displayText } from '@airlock/toolkit/display';
import { headsDir, resolveAuditPath } from '@airlock/audit-format';
import { followAuditLog, formatRecord, tailAuditLog } from './tail.js';
import { verifyAuditLog, type VerifyReport } from './verify.js';

/** Exit codes, as the CLI has them: done, a bad outcome (a broken chain), nothing to work on. */
const EXIT = { ok: 0, outcome: 1, usage: 2 } as const;

/** Where a command writes and what it runs for: the CLI's CommandInput, or a test's buffers. */
export interface AuditCommandIO {
  stdout: { write(text: string): unknown };
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The global flags these commands read. */
export interface AuditGlobals {
  json?: boolean;
  cwd?: string;
}

/**
 * `airlock audit verify|tail`, which audit-log's manifest declares. Both read files only, so they
 * use nothing its setup built: the log's location is the `path` option the settings give
 * audit-log, as written, trusted or not (reading a log runs nothing, and a person looks at the
 * log the project's settings point to).
 */
const command = {
  subcommands: [
    {
      name: 'verify',
      summary: "check the hash chain and report the first broken link (exit 1); default: this project's log folder",
      arguments: [{ name: 'target', description: 'an audit log file, or a folder: every rotated set in it, oldest file first' }],
      options: Type.Object({
        head: Type.Boolean({ default: true, description: 'check the chain only, not whether it ends where its head says (a copied or archived log)' }),
      }),
      run: (input) =>
        auditVerifyCommand(
          { ...(input.args[0] === undefined ? { defaultLog: projectLog(input) } : { target: input.args[0] }), head: input.options.head !== false },
          { json: input.json },
          { ...input, cwd: input.cwd },
        ),
    },
    {
      name: 'tail',
      summary: 'show the last records of the audit log, one line each (--json: the raw JSON lines)',
      arguments: [{ name: 'file', description: "the log file (default: this project's active log)" }],
      options: Type.Object({
        lines: Type.Integer({ minimum: 1, default: 20, short: 'n', description: 'how many records' }),
        follow: Type.Boolean({ default: false, short: 'f', description: 'keep printing records as they are written, across rotation, until Ctrl-C' }),
      }),
      run: (input) =>
        auditTailCommand(
          {
            ...(input.args[0] === undefined ? { defaultLog: projectLog(input) } : { file: input.args[0] }),
            lines: input.options.lines as number,
            follow: input.options.follow === true,
            signal: input.signal,
          },
          { json: input.json },
          input,
        ),
    },
  ],
} satisfies CommandDefinition;

export default command;

/** The log the settings' audit-log options point to (the default one when they name none). */
function projectLog(input: CommandInput): string {
  const path = (input.settingsOptions as { path?: unknown } | undefined)?.path;
  return resolveAuditPath(typeof path === 'string' ? path : undefined, input.cwd, where(input.env));
}

/**
 * `airlock audit verify [target]`: check the hash chain of a log file, or of every rotated set in a
 * folder, and that each chain ends where its head (kept in the user's state folder) says; report
 * the first broken link. Exit 0 when intact, 1 when broken, 2 when there is nothing to check.
 * `head: false` (`--no-head`) checks the chain alone. Without a target: the folder of `defaultLog`.
 */
export async function auditVerifyCommand(o: { target?: string; defaultLog?: string; head?: boolean }, g: AuditGlobals, io: AuditCommandIO): Promise<number> {
  // Without a target: this project's folder, so the whole rotated set is checked in order.
  const target = o.target === undefined ? dirname(required(o.defaultLog)) : resolve(io.cwd, g.cwd ?? '.', o.target);
  const heads = headsDir(where(io.env));
  const results = verifyAuditLog(target, o.head === false ? {} : { headsDir: heads });
  const reports: VerifyReport[] = [];
  for (const result of results) {
    if (result.kind === 'unreadable') throw usage(result.message, result.fix);
    reports.push(result.report);
  }
  const ok = reports.every((r) => r.ok);
  if (g.json) io.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : { ok, sets: reports })}\n`);
  else for (const report of reports) io.stdout.write(describe(report));
  return ok ? EXIT.ok : EXIT.outcome;
}

/** `airlock audit tail [file] [-n N]`: the last records, one line each (or the raw JSON lines with --json). */
export async function auditTailCommand(
  o: { file?: string; defaultLog?: string; lines: number; follow?: boolean; signal?: AbortSignal },
  g: AuditGlobals,
  io: AuditCommandIO,
): Promise<number> {
  const target = o.file === undefined ? required(o.defaultLog) : resolve(io.cwd, g.cwd ?? '.', o.file);
  const print = (line: { text: string; record: Parameters<typeof formatRecord>[0] }) =>
    void io.stdout.write(`${g.json ? line.text : formatRecord(line.record, line.text)}\n`);
  const result = tailAuditLog(target, o.lines);
  // Following a log that does not exist yet is fine: the first call of the run creates it.
  if (result.kind === 'unreadable' && !o.follow) throw usage(result.message, result.fix);
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

function where(env: Readonly<Record<string, string | undefined>>): { env: Readonly<Record<string, string | undefined>>; home: string } {
  return { env, home: env.HOME ?? homedir() };
}

function required(log: string | undefined): string {
  if (log === undefined) throw new Error('no audit log given: name a file, or let the command find this project\'s log');
  return log;
}

/** A problem before any record is read: the CLI shows the message and the fix, and exits 2. */
function usage(message: string, fix: string | undefined): Error {
  return Object.assign(new Error(message), fix === undefined ? {} : { hint: fix });
}

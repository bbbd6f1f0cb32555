import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listSet, setsInFolder } from './rotation.js';
import type { AuditRecord } from './record.js';

/** The last records of a log, oldest first, read back through rotated files when the active one is short. */
export interface TailLine {
  file: string;
  text: string;
  record: AuditRecord | undefined;
}

export type TailResult = { kind: 'lines'; lines: TailLine[] } | { kind: 'unreadable'; message: string; fix: string };

export function tailAuditLog(target: string, count: number): TailResult {
  let files: string[];
  try {
    files = filesFor(target);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'ENOENT'
      ? { kind: 'unreadable', message: `No audit log at ${target}.`, fix: 'No tool call has been logged for this project yet, or the path is wrong.' }
      : { kind: 'unreadable', message: `Cannot read ${target} (${code ?? String(error)}).`, fix: 'Check the permissions of the file and its folder.' };
  }
  const out: TailLine[] = [];
  for (const file of [...files].reverse()) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (const line of lines.reverse()) {
      if (out.length >= count) break;
      out.push({ file, text: line, record: parseRecord(line) });
    }
    if (out.length >= count) break;
  }
  return { kind: 'lines', lines: out.reverse() };
}

/** The files of the set `target` names (a file: its set up to and including it; a folder: its first set). */
function filesFor(target: string): string[] {
  if (statSync(target).isDirectory()) {
    const set = setsInFolder(target).find((s) => s.rotated.length > 0 || existsSync(s.active));
    if (set === undefined) throw Object.assign(new Error('no audit log'), { code: 'ENOENT' });
    return [...set.rotated.map((r) => r.path), ...(existsSync(set.active) ? [set.active] : [])];
  }
  const set = listSet(target);
  if (join(set.dir, `${set.stem}.jsonl`) !== target && !set.rotated.some((r) => r.path === target)) return [target];
  const all = [...set.rotated.map((r) => r.path), set.active];
  return all.slice(0, all.indexOf(target) + 1).filter((f) => existsSync(f));
}

function parseRecord(line: string): AuditRecord | undefined {
  try {
    const value = JSON.parse(line) as AuditRecord;
    return typeof value === 'object' && value !== null && typeof value.type === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One record as one line for people: `#12 21:11:19.123 result read call_1 ok 3.1 ms 120 B sha256 1a2b3c4d`. */
export function formatRecord(record: AuditRecord | undefined, raw: string): string {
  if (record === undefined) return `(not a record) ${raw.slice(0, 120)}`;
  const head = `#${record.seq} ${record.time}`;
  switch (record.type) {
    case 'decision':
      return `${head} decision ${record.tool} ${record.toolCallId} ${record.decision}${record.vote === 'ask' ? ' (asked)' : ''} · ${source(record.decision_source)}`;
    case 'result':
      return `${head} result   ${record.tool} ${record.toolCallId} ${record.outcome} ${record.durationMs} ms ${record.resultBytes} B sha256 ${record.resultSha256.slice(0, 12)}`;
    case 'recovery':
      return `${head} recovery sealed a torn line of ${record.torn.bytes} bytes (a crash cut a write short)`;
  }
}

function source(s: Extract<AuditRecord, { type: 'decision' }>['decision_source']): string {
  switch (s.kind) {
    case 'rule':
      return `rule ${s.rule} (${s.handler})`;
    case 'handler':
      return `handler ${s.handler}`;
    case 'user':
      return `user${s.scope ? `, ${s.scope}` : ''} (${s.handler})`;
    case 'approver':
      return `${s.by ?? 'approver'}${s.scope ? `, ${s.scope}` : ''} (${s.handler})`;
    case 'handler-failure':
      return `failure of ${s.handler} (${s.phase})`;
    case 'kernel':
      return `kernel: ${s.reason}`;
    default:
      return s.kind;
  }
}

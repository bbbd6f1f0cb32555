import { readFileSync } from 'node:fs';
import type { Message } from '../messages.js';
import { SessionError } from './errors.js';
import { checkHeader, checkMessageLine, checkWithheldLine, TRANSCRIPT_FORMAT, type SessionHeader, type TranscriptEntry } from './records.js';

/** A transcript read back: its header, every entry in file order, and what was wrong with it. */
export interface LoadedTranscript {
  readonly path: string;
  readonly header: SessionHeader;
  readonly entries: readonly TranscriptEntry[];
  /** The messages alone (withheld ones are absent), in order: what `--resume` gives the loop. */
  readonly messages: readonly Message[];
  /** Lines left out, each naming its line number and why (a torn last line after a crash). */
  readonly warnings: readonly string[];
}

/**
 * Read a transcript file. A line that does not parse is left out with a warning (the usual case:
 * the last line, cut off by a crash mid-write); a file whose first line is not a session header,
 * or of a newer format, is refused with a SessionError.
 *
 * @example
 * const t = loadTranscript(found.path);
 * for (const w of t.warnings) console.error(w);
 * agent.resume(t.messages);
 */
export function loadTranscript(path: string): LoadedTranscript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SessionError(code === 'ENOENT' ? `No transcript at ${path}.` : `Cannot read the transcript ${path}: ${(error as Error).message}`, 'Run `airlock sessions` to list the sessions of this project.');
  }
  const lines = text.split('\n');
  const torn = !text.endsWith('\n');
  if (!torn) lines.pop();
  const header = parseHeader(path, lines[0]);
  const entries: TranscriptEntry[] = [];
  const warnings: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const number = i + 1;
    const cutOff = torn && i === lines.length - 1;
    const entry = parseEntry(line);
    if (typeof entry !== 'string') entries.push(entry);
    else if (cutOff) warnings.push(`${path}:${number}: the last line is cut off (the run ended while writing it); it is left out.`);
    else warnings.push(`${path}:${number}: left out: ${entry}.`);
  }
  const messages = entries.flatMap((e) => (e.type === 'message' ? [e.message] : []));
  return { path, header, entries, messages, warnings };
}

function parseHeader(path: string, line: string | undefined): SessionHeader {
  let value: unknown;
  try {
    value = JSON.parse(line ?? '');
  } catch {
    value = undefined;
  }
  if (!checkHeader.Check(value)) throw new SessionError(`${path} is not an Airlock transcript: its first line is not a session header.`, 'Give a session id from `airlock sessions`, or the path of a transcript file.');
  if (value.format > TRANSCRIPT_FORMAT)
    throw new SessionError(`${path} was written in transcript format ${value.format} by Airlock ${value.airlock}; this Airlock reads format ${TRANSCRIPT_FORMAT} and older.`, 'Use a newer Airlock to read it.');
  return value;
}

/** The entry, or why the line is not one. */
function parseEntry(line: string): TranscriptEntry | string {
  if (line.trim() === '') return 'an empty line';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (checkWithheldLine.Check(value)) return value;
  if (!checkMessageLine.Check(value)) return 'neither a message nor a withheld marker';
  const problem = messageProblem(value.message as Record<string, unknown>);
  return problem === undefined ? { type: 'message', message: value.message as unknown as Message } : `a ${value.message.role} message ${problem}`;
}

/** What a message of its role lacks that the loop and replay rely on. */
function messageProblem(m: Record<string, unknown>): string | undefined {
  if (m.role === 'user') return typeof m.content === 'string' || Array.isArray(m.content) ? undefined : 'without content';
  if (!Array.isArray(m.content)) return 'without a content list';
  if (m.role === 'assistant') {
    const bad = m.content.find((b) => typeof b !== 'object' || b === null || (b.type === 'toolCall' && (typeof b.id !== 'string' || typeof b.name !== 'string')));
    return bad === undefined ? undefined : 'with a tool call missing its id or name';
  }
  return typeof m.toolCallId === 'string' && typeof m.toolName === 'string' && typeof m.outcome === 'string' ? undefined : 'missing its toolCallId, toolName or outcome';
}

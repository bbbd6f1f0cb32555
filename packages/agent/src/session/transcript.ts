import { chmodSync, closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { KERNEL_VERSION } from '@airlock/kernel';
import { errnoWords, errorMessage } from '@airlock/toolkit/util';
import type { Message } from '../messages.js';
import { newSessionId } from './id.js';
import { sessionsDir, type StateLocation } from './location.js';
import { TRANSCRIPT_FORMAT, type SessionExtension, type SessionHeader, type TranscriptEntry } from './records.js';
import { redactMessage, type Redact } from './redact-message.js';

export interface OpenTranscriptOptions {
  /** The folder the run starts in; its project decides the transcript folder. */
  cwd: string;
  /** `provider:name`, as given to `--model`. */
  model: string;
  /**
   * Applied to every string of every message before it is written (`host.redact`, which runs
   * redact-secrets). Required, so forgetting it is a type error; a throw withholds the message.
   */
  redact: Redact;
  /** Where the state folder is: the environment (XDG_STATE_HOME) and the home folder. */
  where: StateLocation;
  /** The Airlock version recorded in the header (default: the kernel's). */
  airlockVersion?: string;
  /** The extensions the session runs with (`sessionExtensions(host.extensions.extensions)`), recorded in the header so replay can say what changed. */
  extensions?: readonly SessionExtension[];
  /** Continue this existing transcript file (`--resume`) instead of starting a new one. */
  resume?: { path: string; header: SessionHeader };
  /** Another folder for the transcripts (default: the project's folder in the state folder). */
  dir?: string;
  /** The clock (tests). */
  now?: () => Date;
}

/** An open transcript: every message appended is redacted, written and handed to the OS at once. */
export interface Transcript {
  readonly id: string;
  readonly path: string;
  readonly header: SessionHeader;
  /** Redact and append one message; returns what was written (the message, or a withheld marker). */
  appendMessage(message: Message): TranscriptEntry;
  close(): void;
}

const NEW_FILE = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const EXISTING_FILE = constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW;

/**
 * Start a session's transcript (or reopen one to resume it): a JSONL file, mode 0600, in a folder
 * of mode 0700, whose first line is the header (see records.ts). Append-only: each message is one
 * line, written with one system call as it arrives, so a crash loses at most the line being
 * written (a reader tolerates that torn last line; resuming cuts it off).
 *
 * @example
 * const transcript = openTranscript({ cwd, model: 'openai:gpt-5-mini', redact: host.redact, where: { env: process.env, home: homedir() } });
 * transcript.appendMessage(userMessage('List the files'));
 * transcript.close();
 */
export function openTranscript(options: OpenTranscriptOptions): Transcript {
  if (typeof options.redact !== 'function') throw new TypeError('openTranscript needs a redact function (host.redact): a transcript is never written unredacted by accident.');
  let fd: number;
  let header: SessionHeader;
  let path: string;
  if (options.resume !== undefined) {
    path = options.resume.path;
    header = options.resume.header;
    fd = attempt(`reopen the transcript ${path}`, () => openSync(path, EXISTING_FILE));
    cutTornTail(fd);
    chmodSync(path, 0o600);
  } else {
    const dir = options.dir ?? sessionsDir(options.cwd, options.where);
    attempt(`create the transcript folder ${dir}`, () => ensurePrivateFolder(dir));
    const started = (options.now ?? (() => new Date()))();
    header = {
      type: 'session',
      format: TRANSCRIPT_FORMAT,
      id: newSessionId(started),
      cwd: options.cwd,
      model: options.model,
      airlock: options.airlockVersion ?? KERNEL_VERSION,
      startedAt: started.toISOString(),
      ...(options.extensions === undefined ? {} : { extensions: options.extensions.map((e) => ({ ...e, tools: [...e.tools] })) }),
    };
    const file = join(dir, `${header.id}.jsonl`);
    path = file;
    fd = attempt(`create the transcript ${file}`, () => openSync(file, NEW_FILE, 0o600));
    // The header's strings are the user's folder and model name; redacted like everything else.
    writeLine(fd, { ...header, cwd: redactOr(options.redact, header.cwd), model: redactOr(options.redact, header.model) });
  }
  let open = true;
  return {
    id: header.id,
    path,
    header,
    appendMessage(message: Message): TranscriptEntry {
      if (!open) throw new Error(`The transcript ${path} is closed; open it again (resume) to append.`);
      const redacted = redactMessage(message, options.redact);
      const entry: TranscriptEntry = 'type' in redacted && redacted.type === 'withheld' ? redacted : { type: 'message', message: redacted as Message };
      attempt(`append to the transcript ${path}`, () => writeLine(fd, entry));
      return entry;
    },
    close(): void {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/**
 * A listener for the loop's events that appends each finished message (`message_end`) to the
 * transcript, so every message of a run lands in it as it completes.
 *
 * @example agent.subscribe(transcriptListener(transcript));
 */
export function transcriptListener(transcript: Transcript): (event: { type: string; message?: unknown }) => void {
  return (event) => {
    if (event.type === 'message_end' && event.message !== undefined) transcript.appendMessage(event.message as Message);
  };
}

/** Run a file operation; a failure says what could not be done, why in words, and what to do. */
function attempt<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const words = errnoWords(error) ?? errorMessage(error);
    throw new Error(`Cannot ${what}: ${words}. Transcripts go to $XDG_STATE_HOME/airlock/sessions (~/.local/state without it): make that folder writable, or set XDG_STATE_HOME to one that is.`, { cause: error });
  }
}

function redactOr(redact: Redact, text: string): string {
  try {
    return redact(text);
  } catch {
    return '[withheld: could not be redacted]';
  }
}

function writeLine(fd: number, value: unknown): void {
  const bytes = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** `mkdir -p` with mode 0700, and 0700 on the last folder even when it existed wider. */
function ensurePrivateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** A crash mid-write leaves a last line without its newline: cut it off before appending after it. */
function cutTornTail(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  // Look back from the end for the last newline, a chunk at a time.
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    const i = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (i >= 0) {
      const keep = start + i + 1;
      if (keep < size) ftruncateSync(fd, keep);
      return;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
}

import { findSession } from './list.js';
import { loadTranscript, type LoadedTranscript } from './load.js';
import { openTranscript, type OpenTranscriptOptions, type Transcript } from './transcript.js';

/** What resuming gives: the messages so far (for the loop) and the transcript reopened for appending. */
export interface ResumedSession {
  readonly transcript: Transcript;
  /** The transcript as it was read: `messages` to continue from, `warnings` to show (a torn last line). */
  readonly loaded: LoadedTranscript;
}

/**
 * `--resume [id]`: find the session (an id, a prefix, a transcript path, or nothing for the
 * project's newest), read it, and reopen it so new messages are appended to the same file (a torn
 * last line is cut off first). Throws a SessionError that says how to list the sessions when
 * nothing matches.
 *
 * @example
 * const { transcript, loaded } = resumeTranscript(flags.resume, { cwd, model, redact: host.redact, where });
 * for (const w of loaded.warnings) console.error(w);
 * await agent.run({ history: loaded.messages, onMessage: (m) => transcript.appendMessage(m) });
 */
export function resumeTranscript(ref: string | undefined, options: Omit<OpenTranscriptOptions, 'resume'>): ResumedSession {
  const path = findSession(ref, { cwd: options.cwd, where: options.where, ...(options.dir === undefined ? {} : { dir: options.dir }) });
  const loaded = loadTranscript(path);
  const transcript = openTranscript({ ...options, resume: { path, header: loaded.header } });
  return { transcript, loaded };
}

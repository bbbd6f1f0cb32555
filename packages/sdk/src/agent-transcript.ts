import { homedir } from 'node:os';
import { openTranscript, sessionExtensions, type Message, type Transcript } from '@airlock/agent';
import type { Host } from '@airlock/host';

/** `true`: the project's sessions folder, where `airlock sessions` looks; `{ dir }`: a folder of your own. */
export type TranscriptOption = boolean | { dir?: string };

/**
 * Open an agent's transcript as `airlock run` opens its own: the same folder (the project's, in
 * the state folder), the same header (model, Airlock version, the loaded extensions and their
 * tools), every message redacted by the host's redactors before it is written. `history` given
 * to the agent is written first, so the file holds the whole conversation the agent continues.
 * Undefined when `option` is false or absent.
 *
 * @example
 * const t = agentTranscript(true, host, { cwd, spec: 'openai:gpt-5-mini', env: process.env, history: [] });
 */
export function agentTranscript(
  option: TranscriptOption | undefined,
  host: Host,
  at: { cwd: string; spec: string; env: Readonly<Record<string, string | undefined>>; homeDir?: string; history: readonly Message[] },
): Transcript | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== 'object' || option === null || (option.dir !== undefined && (typeof option.dir !== 'string' || option.dir === '')))) {
    throw new TypeError(`transcript must be true, false or { dir: 'a folder' }; got ${JSON.stringify(option)}.`);
  }
  const transcript = openTranscript({
    cwd: at.cwd,
    model: at.spec,
    redact: (text) => host.redact(text),
    where: { env: at.env, home: at.homeDir ?? (at.env.HOME || homedir()) },
    extensions: sessionExtensions(host.extensions.extensions),
    ...(option === true || option.dir === undefined ? {} : { dir: option.dir }),
  });
  for (const message of at.history) transcript.appendMessage(message);
  // Extensions learn where the session is recorded (command hooks hand it to scripts as transcript_path).
  host.services.transcriptPath = transcript.path;
  return transcript;
}

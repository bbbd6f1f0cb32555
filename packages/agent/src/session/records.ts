import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Message } from '../messages.js';

/**
 * The lines of a transcript file (JSONL). The first line is the header; every later line is one
 * message, or a marker where a message was withheld because it could not be redacted.
 *
 * ```jsonl
 * {"type":"session","format":1,"id":"20261202T011500123Z-3f9a1c","cwd":"/home/ada/shop","model":"openai:gpt-5-mini","airlock":"1.0.0","startedAt":"2026-12-02T01:15:00.123Z"}
 * {"type":"message","message":{"role":"user","content":"List the files","timestamp":1796173500123}}
 * {"type":"withheld","role":"toolResult","timestamp":1796173501000,"reason":"the redactor \"redact-secrets/secrets\" failed: …"}
 * ```
 */

/** The transcript format this code writes; a reader refuses a newer one. */
export const TRANSCRIPT_FORMAT = 1;

/**
 * One extension a session ran with: its name, its package's version, where it came from (`code`:
 * an object passed to createAirlock, which exists only in that program; `settings`: a package or
 * path a settings layer named, which another run can load again) and the tools it registered.
 */
export const SessionExtensionSchema = Type.Object({
  name: Type.String(),
  version: Type.Optional(Type.String()),
  from: Type.Union([Type.Literal('code'), Type.Literal('settings')]),
  tools: Type.Array(Type.String()),
});
export type SessionExtension = Static<typeof SessionExtensionSchema>;

export const SessionHeaderSchema = Type.Object({
  type: Type.Literal('session'),
  format: Type.Integer({ minimum: 1 }),
  /** Sortable by start time: `YYYYMMDDTHHMMSSmmmZ-<6 hex>`. */
  id: Type.String({ minLength: 1 }),
  /** The folder the run started in (its project is found from here). */
  cwd: Type.String(),
  /** `provider:name` as given to `--model`. */
  model: Type.String(),
  /** The Airlock version that wrote the transcript. */
  airlock: Type.String(),
  /** ISO 8601, UTC. */
  startedAt: Type.String(),
  /**
   * The extensions that were loaded, with their versions and tools (see extensions.ts). Absent in
   * transcripts written before Airlock recorded them; replay then cannot say what changed.
   */
  extensions: Type.Optional(Type.Array(SessionExtensionSchema)),
});
export type SessionHeader = Static<typeof SessionHeaderSchema>;

const Role = Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('toolResult')]);

/** A message line; the message's own shape is checked by role in `asMessage` (load.ts). */
export const MessageLineSchema = Type.Object({
  type: Type.Literal('message'),
  message: Type.Object({ role: Role, timestamp: Type.Number() }),
});

/** Where a message could not be redacted: nothing of it is written but its role, its time and why. */
export const WithheldLineSchema = Type.Object({
  type: Type.Literal('withheld'),
  role: Role,
  timestamp: Type.Number(),
  reason: Type.String(),
});
export type WithheldLine = Static<typeof WithheldLineSchema>;

export const checkHeader = Compile(SessionHeaderSchema);
export const checkMessageLine = Compile(MessageLineSchema);
export const checkWithheldLine = Compile(WithheldLineSchema);

/** One entry of a loaded transcript, in file order. */
export type TranscriptEntry = { type: 'message'; message: Message } | WithheldLine;

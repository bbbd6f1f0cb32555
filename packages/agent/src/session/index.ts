export { SessionError } from './errors.js';
export { newSessionId, SESSION_ID } from './id.js';
export { findSession, listSessions, type SessionQuery, type SessionSummary } from './list.js';
export { loadTranscript, type LoadedTranscript } from './load.js';
export { sessionsDir, type StateLocation } from './location.js';
export { SessionHeaderSchema, TRANSCRIPT_FORMAT, type SessionHeader, type TranscriptEntry, type WithheldLine } from './records.js';
export { redactMessage, type Redact } from './redact-message.js';
export { resumeTranscript, type ResumedSession } from './resume.js';
export { openTranscript, transcriptListener, type OpenTranscriptOptions, type Transcript } from './transcript.js';

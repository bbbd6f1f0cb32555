import type { SessionExtension } from './records.js';

/** What a host reports of one extension entry (`host.extensions.extensions`), as far as a transcript needs it. */
export interface ExtensionEntryLike {
  readonly name: string;
  readonly version?: string | undefined;
  readonly status: string;
  /** The settings layer that named it; `code` for objects passed to createAirlock. */
  readonly layer: string;
  readonly tools: readonly string[];
}

/**
 * The loaded extensions as a session header records them, so a later replay can tell which tool
 * came from where, and warn when the extensions it judges with are not the recorded ones.
 *
 * @example
 * openTranscript({ cwd, model, redact: host.redact, where, extensions: sessionExtensions(host.extensions.extensions) });
 */
export function sessionExtensions(entries: readonly ExtensionEntryLike[]): SessionExtension[] {
  return entries
    .filter((e) => e.status === 'loaded')
    .map((e) => ({ name: e.name, ...(e.version === undefined ? {} : { version: e.version }), from: e.layer === 'code' ? 'code' : 'settings', tools: [...e.tools] }));
}

/**
 * What differs between the extensions a session recorded and those loaded now, one sentence
 * each: missing now, another version, new now. Empty when they agree, or when the transcript
 * predates the record (nothing to compare; the caller says so).
 *
 * @example
 * extensionDifferences([{ name: 'audit-log', version: '1.0.0', from: 'settings', tools: [] }], []);
 * // ['the extension "audit-log" 1.0.0 was loaded when the session was recorded and is not loaded now']
 */
export function extensionDifferences(recorded: readonly SessionExtension[], now: readonly SessionExtension[]): string[] {
  const current = new Map(now.map((e) => [e.name, e]));
  const before = new Set(recorded.map((e) => e.name));
  const out: string[] = [];
  for (const r of recorded) {
    const c = current.get(r.name);
    const was = `the extension "${r.name}"${r.version === undefined ? '' : ` ${r.version}`}`;
    if (c === undefined) {
      const why = r.from === 'code' ? ' (it was passed in code to createAirlock by the program that recorded the session; this process does not have that code)' : '';
      out.push(`${was} was loaded when the session was recorded and is not loaded now${why}`);
    } else if (c.version !== r.version) {
      out.push(`${was} was loaded when the session was recorded; now it is version ${c.version ?? 'unknown'}`);
    }
  }
  for (const c of now) if (!before.has(c.name)) out.push(`the extension "${c.name}"${c.version === undefined ? '' : ` ${c.version}`} is loaded now and was not when the session was recorded`);
  return out;
}

/**
 * The recorded extension that registered a tool, or undefined when the header does not say.
 *
 * @example recordedOrigin(header.extensions, 'deploy') // { name: 'acme-deploy', from: 'code', … }
 */
export function recordedOrigin(recorded: readonly SessionExtension[] | undefined, tool: string): SessionExtension | undefined {
  return recorded?.find((e) => e.tools.includes(tool));
}

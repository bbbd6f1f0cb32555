import { randomUUID } from 'node:crypto';
import type { AssistantToolCall } from '../messages.js';

/**
 * Streamed tool-call arguments, joined and parsed the same way for every provider. A model's
 * arguments arrive as JSON text cut at arbitrary points (mid-string, mid-`\u` escape, mid-key);
 * the pieces are joined per call and parsed once, when the call is complete. Text that does not
 * parse, or parses to something other than an object, never throws: the call keeps its raw text
 * and a `parseError`, and the loop answers it with an `invalid` result the model can act on.
 */

/** The outcome of parsing one call's complete argument text. */
export interface ParsedToolArguments {
  /** The arguments object, or `undefined` when the text was not a JSON object. */
  arguments: Record<string, unknown> | undefined;
  /** Why the text was not accepted; present exactly when `arguments` is `undefined`. */
  parseError?: string;
}

/**
 * Parse a tool call's complete argument text. Empty text means "no arguments" (models send it for
 * tools without parameters) and parses to `{}`. Only a JSON object is accepted: a tool's arguments
 * are always an object, and Anthropic rejects anything else when the call is sent back.
 *
 * @example
 * parseToolArguments('{"path":"a.txt"}'); // { arguments: { path: 'a.txt' } }
 * parseToolArguments('{"path":');         // { arguments: undefined, parseError: 'the arguments are not valid JSON (…)' }
 */
export function parseToolArguments(text: string): ParsedToolArguments {
  if (text.trim() === '') return { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { arguments: undefined, parseError: `the arguments are not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { arguments: undefined, parseError: `the arguments must be a JSON object, got ${kind}` };
  }
  return { arguments: value as Record<string, unknown> };
}

interface OpenCall {
  /** Position among this message's tool calls. */
  index: number;
  id: string;
  /** The name as the model spelled it (the provider's name, not yet mapped back). */
  providerName: string;
  text: string;
}

/**
 * Joins the streamed pieces of one message's tool calls. `key` identifies a call within the
 * stream: OpenAI's `tool_calls[].index`, Anthropic's content block index. Ids are made unique
 * within the message (a missing id gets a fresh one, a repeated id a suffix), because every
 * answer must name exactly one call.
 *
 * @example
 * const calls = new StreamedToolCalls(new Map([['read', 'read']]));
 * calls.begin(0, 'call_1', 'read');
 * calls.append(0, '{"path":"a');
 * calls.append(0, '.txt"}');
 * calls.finish(0); // { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a.txt' } }
 */
export class StreamedToolCalls {
  readonly #open = new Map<string | number, OpenCall>();
  readonly #ids = new Set<string>();
  #count = 0;

  /** @param names provider name → Airlock name (`providerToolNames`); unknown names pass through. */
  constructor(private readonly names: ReadonlyMap<string, string>) {}

  /** Is a call with this key being streamed? */
  has(key: string | number): boolean {
    return this.#open.has(key);
  }

  /** The keys of calls not finished yet, in the order they began. */
  openKeys(): (string | number)[] {
    return [...this.#open.keys()];
  }

  /** Start a call; returns its position, final id and Airlock name. */
  begin(key: string | number, id: string | undefined, providerName: string | undefined): { index: number; id: string; name: string } {
    const call: OpenCall = { index: this.#count++, id: this.#uniqueId(id), providerName: providerName ?? '', text: '' };
    this.#open.set(key, call);
    return { index: call.index, id: call.id, name: this.airlockName(call.providerName) };
  }

  /** Add a name piece that arrived after the call began (some servers stream the name too). */
  appendName(key: string | number, piece: string): void {
    const call = this.#open.get(key);
    if (call !== undefined) call.providerName += piece;
  }

  /** The id a call was given, or undefined for an unknown key. */
  idOf(key: string | number): string | undefined {
    return this.#open.get(key)?.id;
  }

  /** Add argument text; returns the call's position, or undefined for an unknown key. */
  append(key: string | number, piece: string): number | undefined {
    const call = this.#open.get(key);
    if (call === undefined) return undefined;
    call.text += piece;
    return call.index;
  }

  /**
   * Finish a call and parse its arguments. `complete` is given when the provider sent the whole
   * arguments object at once (Anthropic's `input` when no deltas came).
   */
  finish(key: string | number, complete?: unknown): { index: number; call: AssistantToolCall } | undefined {
    const open = this.#open.get(key);
    if (open === undefined) return undefined;
    this.#open.delete(key);
    let text = open.text;
    if (text === '' && complete !== undefined && !isEmptyObject(complete)) text = JSON.stringify(complete);
    const parsed = parseToolArguments(text);
    const call: AssistantToolCall = { type: 'toolCall', id: open.id, name: this.airlockName(open.providerName), arguments: parsed.arguments };
    if (parsed.parseError !== undefined) {
      call.argumentsText = text;
      call.parseError = parsed.parseError;
    }
    return { index: open.index, call };
  }

  airlockName(providerName: string): string {
    return this.names.get(providerName) ?? providerName;
  }

  #uniqueId(id: string | undefined): string {
    const base = id !== undefined && id !== '' ? id : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    let out = base;
    for (let n = 2; this.#ids.has(out); n++) out = `${base}_${n}`;
    this.#ids.add(out);
    return out;
  }
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

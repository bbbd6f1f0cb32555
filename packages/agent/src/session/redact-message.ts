import type { Message } from '../messages.js';
import type { WithheldLine } from './records.js';

/** Text in, the same text with secrets replaced out; throws when it cannot redact. */
export type Redact = (text: string) => string;

/**
 * Strings that pair or carry provider data and are passed unchanged: call ids (a result must
 * name its call's id exactly, or a resumed session breaks), a thinking block's signature (opaque,
 * sent back as is) and an image's base64 pixels (a "match" there would corrupt the image without
 * hiding anything readable; the same rule as redact-secrets' tool_result handler).
 */
const KEPT: ReadonlySet<string> = new Set(['id', 'toolCallId', 'signature']);

/**
 * The message with `redact` applied to every other string in it, however deep: user text,
 * assistant text and thinking, tool-call arguments (keys and values),
 * `argumentsText`, error messages, tool-result text and details. If `redact` throws, the whole
 * message is withheld: the answer is a marker carrying its role, time and why, nothing else.
 *
 * @example
 * redactMessage(userMessage('my token ghp_…'), host.redact); // { role: 'user', content: 'my token [REDACTED:github-token#1]', … }
 */
export function redactMessage(message: Message, redact: Redact): Message | WithheldLine {
  try {
    return walk(message, redact, undefined, new WeakSet()) as Message;
  } catch (error) {
    return {
      type: 'withheld',
      role: message.role,
      timestamp: typeof message.timestamp === 'number' ? message.timestamp : Date.now(),
      reason: `withheld from the transcript because it could not be redacted: ${why(error)}`,
    };
  }
}

/**
 * Why redaction failed, in words that quote nothing of the message: a RedactionError's message
 * (the kernel's and the host's name the redactor only); any other error's message may quote the
 * text it failed on, so only its kind is kept.
 */
function why(error: unknown): string {
  if (error instanceof Error && error.name === 'RedactionError') return error.message;
  return `the redact function threw ${error instanceof Error ? `a ${error.name}` : `a ${typeof error}`} (its message is not kept: it may quote the text)`;
}

function walk(value: unknown, redact: Redact, key: string | undefined, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return key !== undefined && KEPT.has(key) ? value : redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) throw Object.assign(new Error('the message refers to itself, so it cannot be written as JSON'), { name: 'RedactionError' });
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => walk(item, redact, undefined, seen));
    const record = value as Record<string, unknown>;
    // An image block: its pixels pass unchanged (see KEPT).
    if (record.type === 'image' && typeof record.data === 'string') return { ...record };
    const out: Record<string, unknown> = {};
    // Keys too: a model chooses the keys of its arguments as freely as the values.
    for (const [k, v] of Object.entries(record)) out[redact(k)] = walk(v, redact, k, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

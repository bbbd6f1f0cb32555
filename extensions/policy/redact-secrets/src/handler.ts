import type { Content, ToolResultEvent, ToolResultHandlers } from '@airlock/contract';
import { placeholderDigests, type Redactor } from '@airlock/secrets';

/**
 * The key under which a result's details carry, beside the placeholders in that result, the
 * SHA-256 of what each replaced (`{ "[REDACTED:github-token#1]": "9f…" }`). Details never reach
 * the model; UIs and logs can confirm a value without seeing it.
 */
export const REDACTIONS_KEY = 'airlockRedactions';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The redact handler: text blocks and details, final results and streamed partials alike.
 * Image blocks pass untouched — their data is pixels, and a "match" in base64 would corrupt the
 * image without hiding anything readable. Returns a patch only when something was redacted.
 * Details that are a plain object (or absent) get REDACTIONS_KEY; other shapes are left as they are.
 */
export function redactHandler(redactor: Redactor): ToolResultHandlers['redact'] {
  return (event: ToolResultEvent) => {
    let contentChanged = false;
    const content: Content[] = event.content.map((block) => {
      if (block.type !== 'text') return block;
      const text = redactor.text(block.text);
      if (text === block.text) return block;
      contentChanged = true;
      return { type: 'text', text };
    });
    const redacted = event.details === undefined ? undefined : redactor.apply(event.details);
    let details = redacted?.value ?? event.details;
    let detailsChanged = redacted?.changed === true;
    if (!contentChanged && !detailsChanged) return undefined;
    const digests = placeholderDigests([content, details], redactor.digestOf);
    if (Object.keys(digests).length > 0 && (details === undefined || isPlainObject(details))) {
      details = { ...(details ?? {}), [REDACTIONS_KEY]: digests };
      detailsChanged = true;
    }
    return {
      ...(contentChanged ? { content } : {}),
      ...(detailsChanged ? { details } : {}),
    };
  };
}

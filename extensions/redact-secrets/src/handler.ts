import type { Content, ToolResultEvent, ToolResultHandlers } from '@airlock/kernel';
import type { Redactor } from '@airlock/secrets';

/**
 * The redact handler: text blocks and details, final results and streamed partials alike.
 * Image blocks pass untouched — their data is pixels, and a "match" in base64 would corrupt the
 * image without hiding anything readable. Returns a patch only when something was redacted.
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
    const details = event.details === undefined ? undefined : redactor.apply(event.details);
    const detailsChanged = details?.changed === true;
    if (!contentChanged && !detailsChanged) return undefined;
    return {
      ...(contentChanged ? { content } : {}),
      ...(detailsChanged ? { details: details!.value } : {}),
    };
  };
}

import type { AgentToolResult, ImageContent, TextContent } from '@airlock/contract';

/**
 * An MCP `tools/call` result as an Airlock tool result: text stays text, images stay images
 * (base64 and MIME type, as both sides carry them; the kernel sniffs, resizes or replaces them
 * like any tool's), embedded resources become text (a binary one that is an image becomes an
 * image, any other binary a note), audio and links a note. `structuredContent` is shown as JSON
 * only when the server sent no content at all. The kernel then cuts, redacts and audits the
 * result like any other.
 *
 * @example
 * fromMcpResult({ content: [{ type: 'text', text: 'hi' }] }) // { content: [{ type: 'text', text: 'hi' }], isError: false }
 */
export function fromMcpResult(result: McpResultLike): AgentToolResult<McpResultDetails> {
  const content: (TextContent | ImageContent)[] = [];
  const blocks = Array.isArray(result.content) ? result.content : [];
  for (const block of blocks) content.push(convertBlock(block));
  if (content.length === 0 && result.structuredContent !== undefined) content.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  if (content.length === 0) content.push({ type: 'text', text: result.isError === true ? 'The server reported an error and gave no text.' : '(no output)' });
  return {
    content,
    isError: result.isError === true,
    ...(result.structuredContent === undefined ? {} : { details: { structuredContent: result.structuredContent } }),
  };
}

/** Kept beside the content for UIs and logs; never sent to the model. */
export interface McpResultDetails {
  structuredContent?: unknown;
}

/** The fields of an MCP CallToolResult this module reads (the SDK's type is wider). */
export interface McpResultLike {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

function convertBlock(raw: unknown): TextContent | ImageContent {
  const block = (raw ?? {}) as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'image':
      if (typeof block.data === 'string' && typeof block.mimeType === 'string') return { type: 'image', data: block.data, mimeType: block.mimeType };
      return note('an image the server sent without data or MIME type');
    case 'audio':
      return note(`audio (${String(block.mimeType ?? 'unknown type')}), which Airlock does not pass to the model`);
    case 'resource_link':
      return { type: 'text', text: `[resource link] ${String(block.name ?? '')} ${String(block.uri ?? '')}`.trim() };
    case 'resource':
      return embedded((block.resource ?? {}) as Record<string, unknown>);
    default:
      return note(`a content block of type ${JSON.stringify(block.type)}, which Airlock does not know`);
  }
}

function embedded(resource: Record<string, unknown>): TextContent | ImageContent {
  const uri = String(resource.uri ?? '');
  const mime = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  if (typeof resource.text === 'string') return { type: 'text', text: `[resource ${uri}${mime === undefined ? '' : ` (${mime})`}]\n${resource.text}` };
  if (typeof resource.blob === 'string' && mime?.startsWith('image/')) return { type: 'image', data: resource.blob, mimeType: mime };
  return note(`a binary resource ${uri}${mime === undefined ? '' : ` (${mime})`}, not shown`);
}

function note(what: string): TextContent {
  return { type: 'text', text: `[${what}]` };
}

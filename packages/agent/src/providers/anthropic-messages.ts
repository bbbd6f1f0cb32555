import type { ImageContent, TextContent, ToolResultMessage } from '@airlock/contract';
import type { ContentBlockParam, ImageBlockParam, MessageParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { AssistantMessage, Message, UserMessage } from '../messages.js';
import { repairTranscript } from './repair-transcript.js';
import { isSendableImage, unsendableImageNote } from './sendable-images.js';
import { wireToolCallId, wireToolName } from './wire-names.js';

export interface AnthropicMessageOptions {
  /** Mark the newest user turn as a prompt-cache breakpoint. */
  cacheLastTurn?: boolean;
  /** Thinking goes back only in messages from this provider id and model (default `anthropic`, any model). */
  provider?: string;
  model?: string;
}

/**
 * Airlock messages → Anthropic messages. The transcript is repaired first (see repairTranscript).
 * Tool results become `tool_result` blocks (with `is_error`, and images inline, which the API
 * accepts there) at the start of the next user turn, as the API requires. Thinking goes back only
 * with its signature and only to the provider and model that wrote it (a signature is not valid
 * elsewhere); other reasoning is left out.
 *
 * @example
 * toAnthropicMessages([userMessage('hi')]); // [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]
 */
export function toAnthropicMessages(messages: readonly Message[], options: AnthropicMessageOptions = {}): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of repairTranscript(messages)) {
    if (message.role === 'assistant') {
      const content = assistantBlocks(message, message.provider === (options.provider ?? 'anthropic') && (options.model === undefined || message.model === options.model));
      if (content.length > 0) out.push({ role: 'assistant', content });
      continue;
    }
    const blocks: ContentBlockParam[] = message.role === 'user' ? userBlocks(message) : [toolResultBlock(message)];
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    // One user turn holds a batch's tool results and anything said after them, results first.
    if (last !== undefined && last.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  }
  if (options.cacheLastTurn) markLastUserTurn(out);
  return out;
}

function userBlocks(message: UserMessage): ContentBlockParam[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return message.content.flatMap((block): ContentBlockParam[] => {
    if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    return [imageBlock(block)];
  });
}

/** `withThinking`: the message came from this provider and model, so its signatures are valid here. */
function assistantBlocks(message: AssistantMessage, withThinking: boolean): ContentBlockParam[] {
  return message.content.flatMap((block): ContentBlockParam[] => {
    switch (block.type) {
      case 'text':
        return block.text === '' ? [] : [{ type: 'text', text: block.text }];
      case 'thinking':
        if (!withThinking || block.signature === undefined) return [];
        return block.redacted ? [{ type: 'redacted_thinking', data: block.signature }] : [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
      case 'toolCall':
        // A call whose JSON did not parse goes back as `{}`: the API wants an object, and the
        // call's answer already told the model what was wrong.
        return [{ type: 'tool_use', id: wireToolCallId(block.id, 'anthropic'), name: wireToolName(block.name, 'anthropic'), input: isObject(block.arguments) ? block.arguments : {} }];
    }
  });
}

function toolResultBlock(message: ToolResultMessage): ToolResultBlockParam {
  const content = message.content.map((c: TextContent | ImageContent): TextBlockParam | ImageBlockParam =>
    c.type === 'text' ? { type: 'text', text: c.text } : imageBlock(c) as TextBlockParam | ImageBlockParam,
  ).filter((c) => c.type !== 'text' || c.text !== '');
  return {
    type: 'tool_result',
    tool_use_id: wireToolCallId(message.toolCallId, 'anthropic'),
    content: content.length > 0 ? content : [{ type: 'text', text: '(no output)' }],
    ...(message.isError ? { is_error: true } : {}),
  };
}

function imageBlock(image: ImageContent): ImageBlockParam | TextBlockParam {
  if (!isSendableImage(image.mimeType)) return { type: 'text', text: unsendableImageNote(image.mimeType) };
  return { type: 'image', source: { type: 'base64', media_type: image.mimeType.toLowerCase() as 'image/png', data: image.data } };
}

function markLastUserTurn(messages: MessageParam[]): void {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const block = message.content.at(-1) as { cache_control?: unknown; type: string } | undefined;
    if (block !== undefined && block.type !== 'thinking' && block.type !== 'redacted_thinking') block.cache_control = { type: 'ephemeral' };
    return;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

import type { ImageContent, TextContent, ToolResultMessage } from '@airlock/contract';
import type { ChatCompletionContentPart, ChatCompletionContentPartText, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AssistantMessage, Message, UserMessage } from '../messages.js';
import { repairTranscript } from './repair-transcript.js';
import { isSendableImage, unsendableImageNote } from './sendable-images.js';
import { wireToolCallId, wireToolName } from './wire-names.js';

/**
 * Airlock messages → chat completions messages. The transcript is repaired first (see
 * repairTranscript). Thinking is not sent back: chat completions has no field for it.
 *
 * Images: a `tool` message takes text only, so images a tool returned go in one `user` message
 * right after the batch's tool messages (tool messages must directly follow the assistant message
 * that made the calls), as `image_url` data URLs, each introduced by the call it came from.
 *
 * @example
 * toOpenAIMessages('Be brief.', [userMessage('hi')]);
 * // [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]
 */
export function toOpenAIMessages(systemPrompt: string, messages: readonly Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (systemPrompt !== '') out.push({ role: 'system', content: systemPrompt });
  let images: ChatCompletionContentPart[] = [];
  const flushImages = (): void => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const message of repairTranscript(messages)) {
    if (message.role !== 'toolResult') flushImages();
    if (message.role === 'user') {
      const user = userToOpenAI(message);
      if (user !== undefined) out.push(user);
    } else if (message.role === 'assistant') {
      const assistant = assistantToOpenAI(message);
      if (assistant !== undefined) out.push(assistant);
    } else {
      out.push({ role: 'tool', tool_call_id: wireToolCallId(message.toolCallId, 'openai'), content: toolResultText(message) });
      const sendable = message.content.filter((c): c is ImageContent => c.type === 'image' && isSendableImage(c.mimeType));
      if (sendable.length > 0) {
        images.push({ type: 'text', text: `Image${sendable.length > 1 ? 's' : ''} returned by the ${message.toolName} call ${message.toolCallId}:` });
        for (const image of sendable) images.push(imagePart(image));
      }
    }
  }
  flushImages();
  return out;
}

function userToOpenAI(message: UserMessage): ChatCompletionMessageParam | undefined {
  if (typeof message.content === 'string') return message.content === '' ? undefined : { role: 'user', content: message.content };
  const parts: ChatCompletionContentPart[] = [];
  for (const block of message.content) {
    if (block.type === 'text') {
      if (block.text !== '') parts.push({ type: 'text', text: block.text });
    } else if (isSendableImage(block.mimeType)) parts.push(imagePart(block));
    else parts.push({ type: 'text', text: unsendableImageNote(block.mimeType) });
  }
  if (parts.length === 0) return undefined;
  // Text-only content goes as a plain string: some compatible servers accept nothing else.
  if (parts.every((p): p is ChatCompletionContentPartText => p.type === 'text')) return { role: 'user', content: parts.map((p) => p.text).join('\n') };
  return { role: 'user', content: parts };
}

function assistantToOpenAI(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  const text = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : [])).join('\n');
  const calls = message.content.flatMap((b) =>
    b.type === 'toolCall'
      ? [{
          id: wireToolCallId(b.id, 'openai'),
          type: 'function' as const,
          // A call whose JSON did not parse goes back as `{}`: its answer already told the model why.
          function: { name: wireToolName(b.name, 'openai'), arguments: JSON.stringify(b.arguments ?? {}) },
        }]
      : [],
  );
  if (text === '' && calls.length === 0) return undefined;
  return calls.length > 0 ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls } : { role: 'assistant', content: text };
}

function toolResultText(message: ToolResultMessage): string {
  const parts = message.content.map((c: TextContent | ImageContent) =>
    c.type === 'text' ? c.text : isSendableImage(c.mimeType) ? `[image ${c.mimeType}: sent in the next message]` : unsendableImageNote(c.mimeType),
  );
  const text = parts.join('\n');
  return text === '' ? '(no output)' : text;
}

function imagePart(image: ImageContent): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

import type { ToolResultMessage } from '@airlock/contract';
import { describe, expect, it } from 'vitest';
import { MISSING_RESULT_TEXT, repairTranscript, userMessage, type AssistantMessage, type Message } from '../../src/index.js';

const assistant = (ids: string[], stopReason: AssistantMessage['stopReason'] = 'toolUse'): AssistantMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'toolCall' as const, id, name: 'read', arguments: {} })),
  stopReason,
  provider: 'scripted',
  model: 'm',
  timestamp: 1,
});
const result = (id: string, text = id): ToolResultMessage => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, outcome: 'ok', timestamp: 2 });
const shape = (messages: Message[]) =>
  messages.map((m) => (m.role === 'toolResult' ? `r:${m.toolCallId}:${(m.content[0] as { text: string }).text}` : m.role === 'assistant' ? `a:${m.stopReason}` : `u:${m.content}`));

describe('repairTranscript', () => {
  it('leaves a well-formed transcript as it is', () => {
    const messages: Message[] = [userMessage('q'), assistant(['1', '2']), result('1'), result('2'), userMessage('next')];
    expect(repairTranscript(messages)).toEqual(messages);
  });

  it('puts answers right after their calls in call order, past a steering message', () => {
    const messages: Message[] = [userMessage('q'), assistant(['1', '2']), result('2'), userMessage('steer'), result('1')];
    expect(shape(repairTranscript(messages))).toEqual(['u:q', 'a:toolUse', 'r:1:1', 'r:2:2', 'u:steer']);
  });

  it('answers calls that have no result, drops orphan and duplicate answers', () => {
    const messages: Message[] = [userMessage('q'), result('0'), assistant(['1', '2']), result('1', 'first'), result('1', 'second'), result('9')];
    const out = repairTranscript(messages);
    expect(shape(out)).toEqual(['u:q', 'a:toolUse', 'r:1:first', `r:2:${MISSING_RESULT_TEXT}`]);
    expect(out[3]).toMatchObject({ isError: true, outcome: 'aborted', toolName: 'read' });
  });

  it('drops errored and aborted turns with their answers, and keeps ids reused by a later turn apart', () => {
    const messages: Message[] = [userMessage('q'), assistant(['1'], 'aborted'), result('1', 'from aborted'), userMessage('again'), assistant(['1']), result('1', 'fresh'), assistant([], 'error')];
    expect(shape(repairTranscript(messages))).toEqual(['u:q', 'u:again', 'a:toolUse', 'r:1:fresh']);
  });

  it('does not change its input', () => {
    const messages: Message[] = [userMessage('q'), assistant(['1'])];
    const copy = structuredClone(messages);
    repairTranscript(messages);
    expect(messages).toEqual(copy);
  });
});

import { createHash } from 'node:crypto';
import { providerToolName } from '@airlock/toolkit';

/**
 * Ids and names from a transcript, respelled where an API would refuse them. They come from the
 * model (or another provider, or a script), so they are not bound by the API they are sent to.
 */

/**
 * A tool call id the API accepts, the same for the call and its answer. Ids made by another
 * provider (a session that switched models, a script) can break an API's rules: Anthropic wants
 * `[a-zA-Z0-9_-]{1,64}`, OpenAI at most 40 characters. Those are replaced by a digest, which is
 * stable and practically unique.
 *
 * @example
 * wireToolCallId('call|abc', 'anthropic'); // 'id_…' (24 hex digits)
 * wireToolCallId('toolu_01', 'anthropic'); // 'toolu_01'
 */
export function wireToolCallId(id: string, provider: 'openai' | 'anthropic'): string {
  const ok = provider === 'anthropic' ? /^[a-zA-Z0-9_-]{1,64}$/.test(id) : id.length > 0 && id.length <= 40;
  return ok ? id : `id_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/**
 * A tool name the API accepts when a past call is sent back. A call keeps the name the model
 * wrote, which may be one no tool has (the loop answered it `not_found`), longer than the API's
 * 64 characters or empty; sent back unchanged it would make every later request fail. Known
 * names come out as `toProviderTools` spells them.
 *
 * @example
 * wireToolName('github:create_issue', 'openai'); // 'github_create_issue'
 * wireToolName('', 'anthropic');                 // 'unnamed_tool'
 */
export function wireToolName(name: string, provider: 'openai' | 'anthropic'): string {
  const spelled = providerToolName(name, provider);
  if (spelled === '') return 'unnamed_tool';
  if (spelled.length <= 64) return spelled;
  return `${spelled.slice(0, 50)}_${createHash('sha256').update(name).digest('hex').slice(0, 13)}`;
}

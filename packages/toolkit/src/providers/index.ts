import type { AnyAgentTool } from '@airlock/contract';
import { AirlockErrors } from '../errors.js';
import { anthropicToolName, toAnthropicTool } from './anthropic.js';
import type { AnthropicTool } from './anthropic.js';
import { geminiToolName, toGeminiDeclaration } from './gemini.js';
import type { GeminiFunctionDeclaration } from './gemini.js';
import { mcpToolName, toMcpTool } from './mcp.js';
import type { McpTool } from './mcp.js';
import { openAIToolName, toOpenAITool } from './openai.js';
import type { OpenAIFunctionTool, OpenAIToolOptions } from './openai.js';

/** The enabled tools of a kernel's selection (`kernel.registry.select()`), or any list with that shape. */
export interface EnabledTools {
  readonly enabled: readonly { readonly tool: AnyAgentTool }[];
}

/**
 * The third of the three tool sets (all registered, enabled, serialized): the enabled tools for one provider. The system
 * prompt's tool list must be built from the same input, never from another list.
 */

export type { AnthropicTool } from './anthropic.js';
export type { GeminiFunctionDeclaration, GeminiSchema, GeminiType } from './gemini.js';
export { toGeminiSchema } from './gemini.js';
export type { JsonObject, JsonValue } from '../json-value.js';
export { toJsonSchema, toJsonValue } from '../json-value.js';
export type { McpTool } from './mcp.js';
export type { OpenAIFunctionTool, OpenAIToolOptions } from './openai.js';
export { strictProblems } from './openai.js';

export type ProviderId = 'openai' | 'anthropic' | 'gemini' | 'mcp';

/** Every provider `toProviderTools` can serialise for. */
export const PROVIDER_IDS: readonly ProviderId[] = ['openai', 'anthropic', 'gemini', 'mcp'];

export interface ProviderToolMap {
  openai: OpenAIFunctionTool;
  anthropic: AnthropicTool;
  gemini: GeminiFunctionDeclaration;
  mcp: McpTool;
}

export interface ProviderOptions {
  /** OpenAI only: see `OpenAIToolOptions.strict`. */
  strict?: boolean;
}

const NAMERS: Record<ProviderId, (name: string) => string> = {
  openai: openAIToolName,
  anthropic: anthropicToolName,
  gemini: geminiToolName,
  mcp: mcpToolName,
};

const MAX_NAME: Record<ProviderId, number> = { openai: 64, anthropic: 64, gemini: 64, mcp: 128 };

/**
 * The name a provider sees for an Airlock tool. Airlock names may contain `:` and `/`, which no
 * provider accepts everywhere; those become `_` (and Gemini's leading digit gets a `_` prefix).
 * Pure and deterministic; use `providerToolNames` to map a model's call back.
 *
 * @example
 * providerToolName('github:create_issue', 'openai'); // 'github_create_issue'
 */
export function providerToolName(name: string, provider: ProviderId): string {
  return NAMERS[provider](name);
}

function toolsOf(input: readonly AnyAgentTool[] | EnabledTools): readonly AnyAgentTool[] {
  return Array.isArray(input) ? input : (input as EnabledTools).enabled.map((entry) => entry.tool);
}

/**
 * Provider name → Airlock tool name for these tools. Throws AIRLOCK_PROVIDER_TOOL_NAME when two
 * tools would reach the provider under one name, or a name grows past the provider's limit.
 *
 * @example
 * const back = providerToolNames(selection, 'anthropic');
 * const tool = selection.get(back.get(call.name) ?? call.name);
 */
export function providerToolNames(enabled: readonly AnyAgentTool[] | EnabledTools, provider: ProviderId): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const tool of toolsOf(enabled)) {
    const providerName = providerToolName(tool.name, provider);
    const taken = map.get(providerName);
    if (taken !== undefined) {
      throw AirlockErrors.AIRLOCK_PROVIDER_TOOL_NAME({ provider, providerName, tools: [taken, tool.name], problem: 'collision' });
    }
    if (providerName.length > MAX_NAME[provider]) {
      throw AirlockErrors.AIRLOCK_PROVIDER_TOOL_NAME({ provider, providerName, tools: [tool.name], problem: 'too_long' });
    }
    map.set(providerName, tool.name);
  }
  return map;
}

/**
 * The enabled tools in one provider's function-definition shape, in input order. The result is
 * plain JSON, shares no object with any tool, and is the same for the same input.
 *
 * @example
 * const selection = registry.select({ excludeTools: ['bash'] });
 * await openai.chat.completions.create({ model, messages, tools: toProviderTools(selection, 'openai') });
 * await anthropic.messages.create({ model, messages, tools: toProviderTools(selection, 'anthropic') });
 */
export function toProviderTools<P extends ProviderId>(
  enabled: readonly AnyAgentTool[] | EnabledTools,
  provider: P,
  options: ProviderOptions = {},
): ProviderToolMap[P][] {
  const tools = toolsOf(enabled);
  // Checked for the whole set first, so a collision fails before any work.
  const names = providerToolNames(tools, provider);
  const byTool = new Map(Array.from(names, ([providerName, toolName]) => [toolName, providerName]));
  const out = tools.map((tool) => {
    const name = byTool.get(tool.name) ?? providerToolName(tool.name, provider);
    switch (provider) {
      case 'openai':
        return toOpenAITool(tool, name, options satisfies OpenAIToolOptions);
      case 'anthropic':
        return toAnthropicTool(tool, name);
      case 'gemini':
        return toGeminiDeclaration(tool, name);
      case 'mcp':
        return toMcpTool(tool, name);
      default:
        throw new TypeError(`unknown provider ${JSON.stringify(provider)}; expected openai, anthropic, gemini or mcp`);
    }
  });
  return out as ProviderToolMap[P][];
}

/**
 * Gemini's `tools[]` entry wrapping the declarations.
 *
 * @example
 * await fetch(url, { body: JSON.stringify({ contents, tools: [toGeminiTool(selection)] }) });
 */
export function toGeminiTool(enabled: readonly AnyAgentTool[] | EnabledTools): { functionDeclarations: GeminiFunctionDeclaration[] } {
  return { functionDeclarations: toProviderTools(enabled, 'gemini') };
}

import { resolve } from 'node:path';
import { parseModelSpec, PROVIDER_FACTORIES, type ModelProvider } from '@airlock/agent';
import { providerSettings, type Host } from '@airlock/host';

/** How `airlock.agent()` is told which model to talk to. */
export interface ModelChoice {
  /** Your own provider object; `model` is then its model name. */
  provider?: ModelProvider;
  /** With `provider`: its model name. Without: `provider:name`, as `airlock run --model` takes it (`openai:gpt-5-mini`). */
  model: string;
  /** Where the provider's API is (an OpenAI-compatible server: Ollama, vLLM, llama.cpp); the spelling settings use. */
  baseUrl?: string;
  /** The API key; default: the provider's variable (`OPENAI_API_KEY`), or `providers.<name>.apiKey` in the user's settings. */
  apiKey?: string;
}

/**
 * The provider and model name an agent talks to, set up as `airlock run --model` sets it up: the
 * same factories, the user's `providers.<name>` settings, `baseUrl` winning over them. Throws a
 * TypeError for a model that is not `provider:name` or options that cannot go together, and the
 * provider's own setup error (no key, a bad URL) before any request.
 *
 * @example
 * agentModel({ model: 'openai:qwen3', baseUrl: 'http://127.0.0.1:11434/v1' }, host, { cwd, env: process.env });
 */
export function agentModel(choice: ModelChoice, host: Pick<Host, 'settings'>, where: { cwd: string; env: Readonly<Record<string, string | undefined>> }): { provider: ModelProvider; model: string; spec: string } {
  if (typeof choice.model !== 'string' || choice.model === '') {
    throw new TypeError("agent() needs { model }: 'provider:name' (e.g. 'openai:gpt-5-mini'), or a model name with your own { provider }.");
  }
  if (choice.provider !== undefined) {
    if (choice.baseUrl !== undefined || choice.apiKey !== undefined) {
      throw new TypeError(`agent() got a provider object and ${choice.baseUrl !== undefined ? 'baseUrl' : 'apiKey'}: set that on your provider, or drop the provider and name the model as 'openai:${choice.model}'.`);
    }
    return { provider: choice.provider, model: choice.model, spec: `${choice.provider.id}:${choice.model}` };
  }
  let parsed: { provider: string; model: string };
  try {
    parsed = parseModelSpec(choice.model);
  } catch (error) {
    // The spec error speaks of --model; here the option is `model`.
    throw new TypeError(`agent({ model: ${JSON.stringify(choice.model)} }): ${(error as Error).message.replace(/--model /g, '')} Or pass your own { provider } with a model name.`);
  }
  const setup = {
    cwd: resolve(where.cwd),
    env: where.env,
    ...providerSettings(parsed.provider, host.settings, choice.baseUrl),
    ...(choice.apiKey === undefined ? {} : { apiKey: choice.apiKey, apiKeySource: 'the apiKey passed to agent()' }),
  };
  const made = PROVIDER_FACTORIES[parsed.provider]!(parsed.model, setup);
  return { provider: made instanceof Promise ? deferred(parsed.provider, made) : made, model: parsed.model, spec: choice.model };
}

/**
 * A provider whose setup reads a file (the scripted provider): `agent()` returns at once and the
 * first request waits for it. A setup that fails ends that run with its message, as any
 * provider failure does.
 */
function deferred(id: string, ready: Promise<ModelProvider>): ModelProvider {
  // Observed here so a failure nobody has asked about yet is not an unhandled rejection.
  ready.catch(() => undefined);
  return {
    id,
    async *stream(request, signal) {
      yield* (await ready).stream(request, signal);
    },
  };
}

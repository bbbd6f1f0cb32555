import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_FACTORIES, userMessage } from '../../src/index.js';
import { anthropicMessageEvents, anthropicSSE, openaiSSE, openaiTextChunks, startModelServer, type ModelServer } from '../support/model-server.js';
import { runProvider } from '../support/provider-run.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('provider registry', () => {
  it('makes openai and anthropic from --model and --base-url, keys from the environment it is given', async () => {
    server = await startModelServer([{ sse: openaiSSE(openaiTextChunks(['from openai'])) }, { sse: anthropicSSE(anthropicMessageEvents([{ type: 'text', pieces: ['from anthropic'] }], 'end_turn')) }]);
    const setup = { cwd: process.cwd(), env: { OPENAI_API_KEY: 'sk-env', ANTHROPIC_API_KEY: 'ak-env' } };
    const openai = await PROVIDER_FACTORIES['openai']!('gpt-test', { ...setup, baseUrl: `${server.baseURL}/v1` });
    const anthropic = await PROVIDER_FACTORIES['anthropic']!('claude-test', { ...setup, baseUrl: server.baseURL });
    expect([openai.id, anthropic.id]).toEqual(['openai', 'anthropic']);
    expect((await runProvider(openai, { model: 'gpt-test', messages: [userMessage('hi')] })).final.content).toEqual([{ type: 'text', text: 'from openai' }]);
    expect((await runProvider(anthropic, { model: 'claude-test', messages: [userMessage('hi')] })).final.content).toEqual([{ type: 'text', text: 'from anthropic' }]);
    expect(server.requests.map((r) => [r.url, r.body.model, r.headers.authorization])).toEqual([
      ['/v1/chat/completions', 'gpt-test', 'Bearer sk-env'],
      ['/v1/messages', 'claude-test', 'Bearer ak-env'],
    ]);
  });

  it('fails before any request when the vendor endpoint has no key, naming the variable', () => {
    expect(() => PROVIDER_FACTORIES['openai']!('gpt-test', { cwd: process.cwd(), env: {} })).toThrow(/OPENAI_API_KEY/);
    expect(() => PROVIDER_FACTORIES['anthropic']!('claude-test', { cwd: process.cwd(), env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it('a key from the setup (settings) wins over the variable; apiKeyEnv names another variable', async () => {
    server = await startModelServer(() => ({ sse: openaiSSE(openaiTextChunks(['ok'])) }));
    const env = { OPENAI_API_KEY: 'sk-env', ROUTER_KEY: 'sk-router' };
    const base = { cwd: process.cwd(), env, baseUrl: `${server.baseURL}/v1` };
    const fromSettings = await PROVIDER_FACTORIES['openai']!('m', { ...base, apiKey: 'sk-settings', apiKeySource: 'providers.openai.apiKey in /u/settings.json' });
    const fromOtherVariable = await PROVIDER_FACTORIES['openai']!('m', { ...base, apiKeyEnv: 'ROUTER_KEY' });
    await runProvider(fromSettings, { model: 'm', messages: [userMessage('hi')] });
    await runProvider(fromOtherVariable, { model: 'm', messages: [userMessage('hi')] });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-settings', 'Bearer sk-router']);
    expect(() => PROVIDER_FACTORIES['anthropic']!('c', { cwd: process.cwd(), env: {}, apiKeyEnv: 'MY_ANTHROPIC' })).toThrow(/MY_ANTHROPIC/);
  });
});

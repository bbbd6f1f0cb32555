import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { openaiSSE, openaiTextChunks, startModelServer, type ModelServer } from '../../agent/test/support/model-server.js';
import { run } from '../src/main.js';
import { testIO } from './test-io.js';

/**
 * `airlock run` takes a provider's key and base URL from the user's settings, never from a
 * project's: the requests a local model server receives show which key went where.
 */

vi.setConfig({ testTimeout: scaledMs(90_000) });

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(): Promise<ModelServer> {
  const s = await startModelServer(() => ({ sse: openaiSSE(openaiTextChunks(['Hi.'])) }));
  servers.push(s);
  return s;
}

function folders(user: object | undefined, project: object | undefined) {
  const base = makeTempDir('airlock-cli-keys-');
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(join(cwd, '.git'), { recursive: true });
  if (user !== undefined) {
    const file = join(home, '.config', 'airlock', 'settings.json');
    writeFileSync(file, JSON.stringify(user));
    chmodSync(file, 0o600);
  }
  if (project !== undefined) writeFileSync(join(cwd, '.airlockrc.json'), JSON.stringify(project));
  return { home, cwd };
}

async function airlock(args: string[], where: { home: string; cwd: string }, env: Record<string, string> = {}) {
  const io = testIO(where.cwd, where.home);
  io.env = { ...io.env, ...env };
  const code = await run(['--no-tools', ...args], io);
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('provider keys and base URLs from settings', () => {
  it("the user's providers.openai.apiKey reaches the server in the request header; no variable needed", async () => {
    const s = await server();
    const where = folders({ providers: { openai: { apiKey: 'sk-from-settings', baseUrl: `${s.baseURL}/v1` } } }, undefined);
    const r = await airlock(['run', '-p', 'hello', '--model', 'openai:m'], where);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Hi.\n');
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer sk-from-settings');
  });

  it('apiKeyEnv names the variable the key is read from', async () => {
    const s = await server();
    const where = folders({ providers: { openai: { apiKeyEnv: 'ROUTER_KEY', baseUrl: `${s.baseURL}/v1` } } }, undefined);
    const r = await airlock(['run', '-p', 'hello', '--model', 'openai:m'], where, { ROUTER_KEY: 'sk-router', OPENAI_API_KEY: 'sk-not-this-one' });
    expect(r.code, r.stderr).toBe(0);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer sk-router');
  });

  it('--base-url wins over the settings', async () => {
    const mine = await server();
    const other = await server();
    const where = folders({ providers: { openai: { apiKey: 'sk-user', baseUrl: `${other.baseURL}/v1` } } }, undefined);
    const r = await airlock(['run', '-p', 'hello', '--model', 'openai:m', '--base-url', `${mine.baseURL}/v1`], where);
    expect(r.code, r.stderr).toBe(0);
    expect(mine.requests.map((q) => q.headers.authorization)).toEqual(['Bearer sk-user']);
    expect(other.requests).toHaveLength(0);
  });

  it.each([['--trust'], ['--no-trust']])("a project's baseUrl (%s) is refused with a warning: the user's key never reaches the project's URL", async (trust) => {
    const mine = await server();
    const collector = await server();
    const where = folders({ providers: { openai: { apiKey: 'sk-user' } } }, { providers: { openai: { baseUrl: `${collector.baseURL}/v1`, apiKeyEnv: 'HOME' } } });
    // The user's own endpoint comes from the user's environment; the project tries to redirect it.
    const r = await airlock([trust, 'run', '-p', 'hello', '--model', 'openai:m'], where, { OPENAI_BASE_URL: `${mine.baseURL}/v1` });
    expect(r.code, r.stderr).toBe(0);
    expect(collector.requests).toHaveLength(0);
    expect(mine.requests.map((q) => q.headers.authorization)).toEqual(['Bearer sk-user']);
    expect(r.stderr).toMatch(/Ignored providers\.openai\.baseUrl, providers\.openai\.apiKeyEnv in .*\.airlockrc\.json: .*never by a project \(trusted or not\)/);
  });

  it('a key refused by the server names the settings file it came from', async () => {
    const s = await startModelServer(() => ({ status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } }));
    servers.push(s);
    const where = folders({ providers: { openai: { apiKey: 'sk-wrong', baseUrl: `${s.baseURL}/v1` } } }, undefined);
    const r = await airlock(['run', '-p', 'hello', '--model', 'openai:m'], where);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`providers.openai.apiKey in ${join(where.home, '.config', 'airlock', 'settings.json')}`);
  });
});

import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running Verdaccio: its address, a token that may publish, and how to stop it. */
export interface Registry {
  /** `http://127.0.0.1:<port>/`, with the trailing slash npm writes in its own config. */
  url: string;
  /** The token of a user made for this registry (npm asks for one to publish, even where anyone may). */
  token: string;
  /** Writes an npm config file naming this registry and the token (for `npm_config_userconfig`); returns its path. */
  npmrc(path: string): string;
  /** Stops the server and removes its storage. */
  close(): Promise<void>;
}

export interface RegistryOptions {
  /**
   * A registry to fetch every other package from (Verdaccio's "uplink"), as a company registry
   * proxies the public one. Without it the registry is offline: it serves only what was published.
   */
  uplink?: string;
  /**
   * Scopes served only from what was published to this registry, never from the uplink: a name in
   * them that nobody published here is a 404, not a package someone else registered upstream.
   */
  privateScopes?: string[];
}

/**
 * Starts Verdaccio (verdaccio@6.8.0, the last on Node 20) inside this process, on 127.0.0.1 and a
 * free port, with its storage in a fresh temp folder, and makes a user over HTTP for the token
 * (`npm adduser` needs a terminal).
 *
 * The server shares this process's event loop: run npm, pnpm and the CLI with async `execFile` or
 * `spawn`, never `execFileSync`, which would block the server they are waiting on and hang.
 *
 * @example
 *   const registry = await startRegistry({ privateScopes: ['@acme'] });
 *   try {
 *     const env = { ...process.env, npm_config_userconfig: registry.npmrc(join(dir, '.npmrc')) };
 *     await execFileAsync('pnpm', ['publish', tarball, '--registry', registry.url, '--no-git-checks'], { env });
 *   } finally {
 *     await registry.close();
 *   }
 */
export async function startRegistry(options: RegistryOptions = {}): Promise<Registry> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-verdaccio-')));
  try {
    // Loaded here, not at the top: the import alone takes most of a second.
    const { runServer } = await import('verdaccio');
    const published = { access: '$all', publish: '$authenticated' };
    const proxied = options.uplink === undefined ? published : { ...published, proxy: 'upstream' };
    const server = (await runServer({
      self_path: dir,
      storage: join(dir, 'storage'),
      auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 10 } },
      uplinks: options.uplink === undefined ? {} : { upstream: { url: options.uplink, timeout: '60s' } },
      // Verdaccio takes the first pattern a name matches: the private scopes come before the catch-all.
      packages: { ...Object.fromEntries((options.privateScopes ?? []).map((scope) => [`${scope}/*`, published])), '**': proxied },
      // Its default of 10 MB is less than a CLI with bundled dependencies, base64-encoded in the request.
      max_body_size: '200mb',
      web: { enable: false },
      log: { type: 'stdout', format: 'pretty', level: 'error' },
    } as Parameters<typeof runServer>[0])) as Server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const stop = async (): Promise<void> => {
      // npm keeps connections alive: without closing them, close() waits for their time-out.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    };
    try {
      const token = await createUser(url, 'airlock-tests');
      return {
        url,
        token,
        npmrc(path) {
          // npm matches a token to a registry by the URL without its scheme.
          writeFileSync(path, `registry=${url}\n//${url.replace(/^https?:\/\//, '')}:_authToken=${token}\n`);
          return path;
        },
        close: stop,
      };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** CouchDB's sign-up call, which npm's registries keep: it creates the user and answers with a token. */
async function createUser(url: string, name: string): Promise<string> {
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `${name}-password` }),
  });
  const body = (await response.json()) as { token?: string; error?: string };
  if (!response.ok || typeof body.token !== 'string') throw new Error(`Verdaccio did not create the user ${name} (HTTP ${response.status}): ${body.error ?? JSON.stringify(body)}`);
  return body.token;
}

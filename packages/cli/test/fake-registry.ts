import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A package as the fake registry publishes it: its latest version's package.json. */
export type Published = Record<string, unknown> & { name: string; version: string };

const manifest = (kernel: string, provides: object) => ({ extension: './dist/index.js', kernel, provides });

/** Four packages for search tests: a policy and a tool with the keyword, a tool with only a manifest, and a package that is no extension. */
export const PUBLISHED: Published[] = [
  { name: '@acme/airlock-guard', version: '1.2.0', description: 'Denies pushes to main: a guard for git.', keywords: ['airlock-extension', 'git'], airlock: manifest('^1.0.0', { hooks: ['tool_call:authorize'] }) },
  { name: 'airlock-shout', version: '0.3.0', description: 'A tool that shouts; a guard against quiet.', keywords: ['airlock-extension'], airlock: manifest('^9.0.0', { tools: ['shout'] }) },
  // No keyword, but a manifest: still an extension (kept), found by its description.
  { name: 'airlock-notes', version: '2.0.0', description: 'Notes tool with a guard word.', airlock: manifest('>=1.0.0', { tools: ['note'] }) },
  // Neither: a package that only matches the words (dropped).
  { name: 'guard-rails', version: '5.0.0', description: 'Unrelated guard library.' },
];

/**
 * A small npm registry over real HTTP on 127.0.0.1: `GET /-/v1/search?text=…&size=…` and
 * `GET /<name>` packuments (`/@scope%2fname` for scoped names, as npm asks). `like: 'npm'`
 * understands the `keywords:` qualifier as registry.npmjs.org does; `like: 'verdaccio'` matches
 * every word against names and descriptions only, as Verdaccio 6.8 does, so a `keywords:` word
 * finds nothing. `requests` records each path asked for.
 *
 * @example const r = await fakeRegistry([{ name: 'airlock-shout', version: '1.0.0', keywords: ['airlock-extension'] }]); r.url
 */
export async function fakeRegistry(packages: readonly Published[], o: { like?: 'npm' | 'verdaccio' } = {}): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://registry');
    requests.push(`${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/-/v1/search') {
      const words = (url.searchParams.get('text') ?? '').split(/\s+/).filter((w) => w !== '');
      const size = Number(url.searchParams.get('size') ?? 20);
      const found = packages.filter((p) => words.every((w) => matches(p, w, o.like ?? 'npm'))).slice(0, size);
      return send(200, { objects: found.map((p) => ({ package: { name: p.name, version: p.version, description: p.description, keywords: p.keywords } })), total: found.length });
    }
    const name = decodeURIComponent(url.pathname.slice(1));
    const p = packages.find((q) => q.name === name);
    if (p === undefined) return send(404, { error: 'not found' });
    send(200, { name: p.name, 'dist-tags': { latest: p.version }, versions: { [p.version]: p } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function matches(p: Published, word: string, like: 'npm' | 'verdaccio'): boolean {
  const text = `${p.name} ${typeof p.description === 'string' ? p.description : ''}`.toLowerCase();
  const keywords = Array.isArray(p.keywords) ? (p.keywords as string[]) : [];
  if (like === 'npm' && word.startsWith('keywords:')) return keywords.includes(word.slice('keywords:'.length));
  return text.includes(word.toLowerCase()) || (like === 'npm' && keywords.includes(word));
}

import { errorMessage } from '@airlock/toolkit/util';
import { EXTENSION_KEYWORD, hasExtensionKeyword } from './extension-keyword.js';
import { mapLimit } from './map-limit.js';

/** One package the registry's search found, with its latest version's package.json from the packument. */
export interface RegistryHit {
  name: string;
  /** The latest version (`dist-tags.latest`), or the search result's when the packument could not be read. */
  version: string;
  description?: string;
  /** The latest version's package.json as published (with its `airlock` manifest); absent when `problem` says why. */
  manifest?: Record<string, unknown>;
  /** Why the packument could not be read; the hit stays, so one broken package does not hide the others. */
  problem?: string;
}

/** What a search gave: the extension packages found, or why the registry could not be asked (with a fix). */
export type SearchOutcome = { ok: true; registry: string; hits: RegistryHit[] } | { ok: false; registry: string; problem: string; fix: string };

export interface SearchOptions {
  /** Search results asked for (npm's API allows 1 to 250). */
  size: number;
  /** Packuments fetched at once. */
  concurrency?: number;
  /** Per request. */
  timeoutMs?: number;
}

interface SearchObject {
  package?: { name?: unknown; version?: unknown; description?: unknown; keywords?: unknown };
}

/**
 * Ask an npm registry's search API (`GET <registry>/-/v1/search`) for Airlock extension packages
 * matching `words`, then read each result's packument for its `airlock` manifest. The text is sent
 * as npm sends it (`keywords:airlock-extension <words>`); registries that do not know the
 * `keywords:` qualifier (Verdaccio matches names and descriptions only) find nothing with it, so
 * the words alone are asked next. Either way only packages with the keyword or an `airlock`
 * manifest are kept: the registry's own filter is not trusted to have run. Errors are values.
 *
 * @example
 * const r = await searchRegistry('https://registry.npmjs.org/', ['git'], { size: 20 });
 * if (r.ok) r.hits.map((h) => h.name); else console.error(r.problem, r.fix);
 */
export async function searchRegistry(registry: string, words: readonly string[], o: SearchOptions): Promise<SearchOutcome> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  let objects: SearchObject[] = [];
  for (const text of queries(words)) {
    const url = new URL('-/v1/search', registry);
    url.searchParams.set('text', text);
    url.searchParams.set('size', String(o.size));
    const got = await getJson(url, timeoutMs);
    if (!got.ok) return { ok: false, registry, ...searchFailure(registry, got) };
    objects = Array.isArray((got.body as { objects?: unknown }).objects) ? ((got.body as { objects: SearchObject[] }).objects) : [];
    if (objects.length > 0) break;
  }
  const seen = new Set<string>();
  const found = objects.flatMap((obj) => {
    const p = obj.package;
    if (typeof p?.name !== 'string' || seen.has(p.name)) return [];
    seen.add(p.name);
    return [{ name: p.name, version: typeof p.version === 'string' ? p.version : '', ...(typeof p.description === 'string' ? { description: p.description } : {}), keyword: hasExtensionKeyword(p.keywords) }];
  });
  const hits = await mapLimit(found, o.concurrency ?? 6, async (f): Promise<RegistryHit | undefined> => {
    const got = await getJson(new URL(packumentPath(f.name), registry), timeoutMs);
    const base = { name: f.name, version: f.version, ...(f.description === undefined ? {} : { description: f.description }) };
    if (!got.ok) return f.keyword ? { ...base, problem: `its packument could not be read: ${got.problem}` } : undefined;
    const manifest = latestManifest(got.body);
    if (manifest === undefined) return f.keyword ? { ...base, problem: 'its packument names no latest version' } : undefined;
    if (!f.keyword && !hasExtensionKeyword(manifest.keywords) && manifest.airlock === undefined) return undefined;
    const version = typeof manifest.version === 'string' ? manifest.version : f.version;
    const description = typeof manifest.description === 'string' ? manifest.description : f.description;
    return { name: f.name, version, ...(description === undefined ? {} : { description }), manifest };
  });
  return { ok: true, registry, hits: hits.filter((h) => h !== undefined) };
}

/** npm's form first; then the bare words for registries that take `keywords:` as text. */
function queries(words: readonly string[]): string[] {
  const text = words.join(' ').trim();
  return text === '' ? [`keywords:${EXTENSION_KEYWORD}`, EXTENSION_KEYWORD] : [`keywords:${EXTENSION_KEYWORD} ${text}`, text];
}

/** `@acme/guard` → `@acme%2fguard`, as npm asks for a scoped packument. */
function packumentPath(name: string): string {
  return encodeURIComponent(name).replace(/^%40/, '@');
}

function latestManifest(packument: unknown): Record<string, unknown> | undefined {
  const p = packument as { 'dist-tags'?: { latest?: unknown }; versions?: Record<string, unknown> };
  const latest = p['dist-tags']?.latest;
  const doc = typeof latest === 'string' ? p.versions?.[latest] : undefined;
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
}

type Got = { ok: true; body: unknown } | { ok: false; status?: number; problem: string };

async function getJson(url: URL, timeoutMs: number): Promise<Got> {
  let response: Response;
  try {
    // The full document: the abbreviated one (application/vnd.npm.install-v1+json) drops `airlock`.
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return { ok: false, problem: networkWords(error, timeoutMs) };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, status: response.status, problem: `it answered ${response.status} ${response.statusText}`.trim() };
  }
  try {
    return { ok: true, body: await response.json() };
  } catch (error) {
    return { ok: false, problem: `its answer is not JSON (${errorMessage(error)})` };
  }
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, a certificate…). */
function networkWords(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return `${cause.code}${typeof cause.message === 'string' ? ` (${cause.message})` : ''}`;
  return errorMessage(cause ?? error);
}

function searchFailure(registry: string, got: { status?: number; problem: string }): { problem: string; fix: string } {
  const where = `The npm registry ${registry}`;
  if (got.status === undefined) {
    return {
      problem: `${where} could not be reached: ${got.problem}.`,
      fix: 'Check the address (`npm config get registry`; npm_config_registry overrides it), your network and proxy, or choose another registry with `npm config set registry <url>`.',
    };
  }
  if (got.status === 401 || got.status === 403) return { problem: `${where} refused the search: ${got.problem}.`, fix: 'This registry wants a login, and airlock sends no credentials yet: search with `npm search keywords:airlock-extension <words>`, or ask its admin to allow anonymous reads.' };
  if (got.status === 404 || got.status === 405 || got.status === 501) return { problem: `${where} has no search API (/-/v1/search): ${got.problem}.`, fix: 'Use its web page to find packages, or search another registry with npm_config_registry=<url>.' };
  return { problem: `${where} failed the search: ${got.problem}.`, fix: 'Try again later; if it persists, tell the registry admin.' };
}

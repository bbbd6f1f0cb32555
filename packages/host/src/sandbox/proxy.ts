import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { rmSync } from 'node:fs';

/** The header a refused request carries, so a test or a tool can tell the sandbox refused it. */
export const BLOCKED_HEADER = 'x-airlock-sandbox';

/** Who may reach a host: the session's rules, or a command given hosts of its own (by its token). */
export interface ProxyGate {
  /** Whether the rules let every command reach `host`. */
  allowed(host: string, port: number): boolean;
  /** The hosts the command holding `token` may reach besides; undefined for an unknown token. */
  grantedTo(token: string): ReadonlySet<string> | undefined;
}

/** The user name a command's proxy URL carries its token under (`http://airlock:<token>@…`). */
export const TOKEN_USER = 'airlock';

/**
 * The sandbox's only way out: an HTTP proxy (plain requests and CONNECT tunnels) on a Unix socket
 * that sandboxed processes reach through socat. It lets through hosts the gate accepts — the
 * rules' hosts for any command, and a command's own granted hosts when its request carries that
 * command's token as proxy credentials — and answers 403 "network blocked by the sandbox: host X"
 * to the rest. Started once per host (never per command) and closed with it.
 *
 * @example
 * const proxy = await startProxy('/tmp/s/proxy.sock', { allowed: (host) => host === 'registry.npmjs.org', grantedTo: () => undefined });
 * await proxy.close();
 */
export async function startProxy(socketPath: string, gate: ProxyGate): Promise<{ close(): Promise<void> }> {
  const refuse = (host: string) => `network blocked by the sandbox: host ${host} (no net(${host}) allow rule covers it, and the command's approval did not name it)\n`;
  const allowed = (req: IncomingMessage, host: string, port: number): boolean => {
    if (gate.allowed(host, port)) return true;
    const token = proxyToken(req.headers['proxy-authorization']);
    return token !== undefined && gate.grantedTo(token)?.has(host) === true;
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('the sandbox proxy takes absolute URLs only\n');
      return;
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (url.protocol !== 'http:' || !allowed(req, bare(url.hostname), port)) {
      res.writeHead(403, { [BLOCKED_HEADER]: 'blocked', 'content-type': 'text/plain' }).end(refuse(url.hostname));
      return;
    }
    // The token is for the proxy only; the server the request goes to never sees it.
    const { 'proxy-authorization': _token, ...headers } = req.headers;
    const upstream = httpRequest({ host: bare(url.hostname), port, method: req.method, path: `${url.pathname}${url.search}`, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (error) => res.writeHead(502).end(`the sandbox proxy could not reach ${url.hostname}: ${error.message}\n`));
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const [host = '', portText = '443'] = splitHostPort(req.url ?? '');
    const port = Number(portText);
    if (!allowed(req, host.toLowerCase(), port)) {
      client.end(`HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: blocked\r\ncontent-type: text/plain\r\n\r\n${refuse(host)}`);
      return;
    }
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const drop = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', drop);
    client.on('error', drop);
  });
  rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A command's token from `Proxy-Authorization: Basic base64("airlock:<token>")`, if it is one. */
function proxyToken(header: string | undefined): string | undefined {
  const m = /^basic\s+([a-z0-9+/=]+)$/i.exec(header ?? '');
  if (m === null) return undefined;
  const [user, token] = Buffer.from(m[1]!, 'base64').toString('utf8').split(':', 2);
  return user === TOKEN_USER && token !== undefined && token !== '' ? token : undefined;
}

/** A URL's host as the rules name it: lower case, an IPv6 address without its brackets. */
function bare(hostname: string): string {
  const h = hostname.toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function splitHostPort(target: string): [string, string] {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(target);
  if (bracketed) return [bracketed[1]!, bracketed[2]!];
  const i = target.lastIndexOf(':');
  return i < 0 ? [target, '443'] : [target.slice(0, i), target.slice(i + 1)];
}

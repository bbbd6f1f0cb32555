import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { rmSync } from 'node:fs';

/** The header a refused request carries, so a test or a tool can tell the sandbox refused it. */
export const BLOCKED_HEADER = 'x-airlock-sandbox';

/**
 * The sandbox's only way out: an HTTP proxy (plain requests and CONNECT tunnels) on a Unix socket
 * that sandboxed processes reach through socat. It lets through hosts `allowed` accepts and
 * answers 403 "network blocked by the sandbox: host X" to the rest. Started once per host (never
 * per command) and closed with it.
 *
 * @example
 * const proxy = await startProxy('/tmp/s/proxy.sock', (host) => host === 'registry.npmjs.org');
 * await proxy.close();
 */
export async function startProxy(socketPath: string, allowed: (host: string, port: number) => boolean): Promise<{ close(): Promise<void> }> {
  const refuse = (host: string) => `network blocked by the sandbox: host ${host} (no net(${host}) allow rule)\n`;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('the sandbox proxy takes absolute URLs only\n');
      return;
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (url.protocol !== 'http:' || !allowed(url.hostname.toLowerCase(), port)) {
      res.writeHead(403, { [BLOCKED_HEADER]: 'blocked', 'content-type': 'text/plain' }).end(refuse(url.hostname));
      return;
    }
    const upstream = httpRequest({ host: url.hostname, port, method: req.method, path: `${url.pathname}${url.search}`, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (error) => res.writeHead(502).end(`the sandbox proxy could not reach ${url.hostname}: ${error.message}\n`));
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const [host = '', portText = '443'] = splitHostPort(req.url ?? '');
    const port = Number(portText);
    if (!allowed(host.toLowerCase(), port)) {
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

function splitHostPort(target: string): [string, string] {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(target);
  if (bracketed) return [bracketed[1]!, bracketed[2]!];
  const i = target.lastIndexOf(':');
  return i < 0 ? [target, '443'] : [target.slice(0, i), target.slice(i + 1)];
}

/**
 * A load balancer in front of several service processes, as a Kubernetes Service or an ingress is:
 * each request goes to the next instance in turn, and to the one after when an instance does not
 * accept the connection (it was killed); with none left the answer is 502. The Host header is kept,
 * so a signature over the public URL still checks out on whichever instance gets it.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Replaces the instances behind it (e.g. a restarted one on a new port). */
  setTargets(urls: string[]): void;
  close(): Promise<void>;
}

export async function startBalancer(targets: string[]): Promise<Balancer> {
  let backends = [...targets];
  let turn = 0;

  const forward = (
    target: string,
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
      (resolve, reject) => {
        const url = new URL(path, target);
        const req = request(url, { method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      },
    );

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const relay = async () => {
      const body = Buffer.concat(chunks);
      const order = backends.map((_, i) => backends[(turn + i) % backends.length]!);
      turn++;
      for (const target of order) {
        try {
          const answer = await forward(
            target,
            req.method ?? 'GET',
            req.url ?? '/',
            { ...req.headers, connection: 'close' },
            body,
          );
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
          return;
        } catch {
          // Not reachable (killed, or restarting): the next one.
        }
      }
      res.writeHead(502, { 'content-type': 'text/plain' }).end('no instance answered');
    };
    // An answer that cannot be written drops the connection, as a real balancer's would.
    req.on('end', () => {
      relay().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setTargets(urls) {
      backends = [...urls];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A TCP proxy in front of a real server, to take it away and bring it back during a test without
 * disturbing anything else using that server: `down()` cuts every connection and refuses new ones,
 * as a crashed or restarting database does; `up()` lets connections through again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const down = () => {
    open = false;
    for (const s of sockets) s.destroy();
  };
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    down,
    up() {
      open = true;
    },
    close() {
      down();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of a real server that a test can cut: `cut()` drops every open connection
 * and refuses new ones, as a crashed or restarting server would; `restore()` lets them through again.
 * `listenHost` (default 127.0.0.1): another address of this machine, for clients in containers.
 */
export async function startTcpProxy(
  target: { host: string; port: number },
  opts: { listenHost?: string } = {},
): Promise<{
  port: number;
  cut(): void;
  restore(): void;
  stop(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let open = true;
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
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, opts.listenHost ?? '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

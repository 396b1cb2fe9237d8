/**
 * TLS in front of a plain local server, on the host's address: the identity provider double speaks
 * http on loopback, and the product takes token URLs over https only (http to loopback alone).
 */
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:tls';

export async function startTlsFront(opts: { listenHost: string; target: { host: string; port: number }; cert: string; key: string }) {
  const sockets = new Set<Socket>();
  const server = createServer({ cert: readFileSync(opts.cert), key: readFileSync(opts.key) }, (client) => {
    const upstream = connect(opts.target.port, opts.target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, opts.listenHost, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

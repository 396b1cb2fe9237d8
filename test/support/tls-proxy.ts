import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';

/**
 * A TLS terminator in front of a plain server, requiring a client certificate from `ca` (mTLS),
 * as a load balancer in front of a Temporal cluster would. gRPC's HTTP/2 passes through at the
 * TCP level; ALPN says h2. `handshakes` counts the clients it let through, `refused` the others.
 */
export async function startTlsProxy(opts: { target: string; cert: string; key: string; ca: string }): Promise<{
  address: string;
  handshakes(): number;
  refused(): number;
  stop(): Promise<void>;
}> {
  const [host, port] = [opts.target.slice(0, opts.target.lastIndexOf(':')), Number(opts.target.slice(opts.target.lastIndexOf(':') + 1))];
  const sockets = new Set<Socket>();
  let handshakes = 0;
  let refused = 0;
  const server = createServer(
    {
      cert: readFileSync(opts.cert),
      key: readFileSync(opts.key),
      ca: readFileSync(opts.ca),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client: TLSSocket) => {
      handshakes += 1;
      const upstream = connect(port, host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    },
  );
  server.on('tlsClientError', () => (refused += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    handshakes: () => handshakes,
    refused: () => refused,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

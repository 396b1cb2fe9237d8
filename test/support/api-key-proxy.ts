import { readFileSync } from 'node:fs';
import http2, { type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** HTTP/2 headers without the pseudo-headers, which each hop sets for itself. */
function plain(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith(':')));
}

/**
 * A TLS front for a plain Temporal frontend that checks `authorization: Bearer <apiKey>` on every
 * gRPC call, as Temporal Cloud does for API keys; calls without it get UNAUTHENTICATED (16).
 * It forwards each HTTP/2 stream (headers, messages, trailers) to the frontend over h2c.
 */
export async function startApiKeyProxy(opts: { target: string; cert: string; key: string; apiKey: string }): Promise<{
  address: string;
  /** The authorization header of every call, as received. */
  seen: Array<string | undefined>;
  stop(): Promise<void>;
}> {
  const seen: Array<string | undefined> = [];
  const sessions = new Set<{ destroy(): void }>();
  let upstream: ClientHttp2Session | undefined;
  const up = () => {
    if (!upstream || upstream.destroyed || upstream.closed) {
      upstream = http2.connect(`http://${opts.target}`);
      upstream.on('error', () => undefined);
      sessions.add(upstream);
    }
    return upstream;
  };
  const server = http2.createSecureServer({ cert: readFileSync(opts.cert), key: readFileSync(opts.key), ALPNProtocols: ['h2'] });
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => undefined);
    const auth = headers.authorization;
    seen.push(Array.isArray(auth) ? auth.join(',') : auth);
    if (auth !== `Bearer ${opts.apiKey}`) {
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'invalid API key' },
        { endStream: true },
      );
      return;
    }
    const call = up().request({ ...plain(headers), ':method': headers[':method'], ':path': headers[':path'] });
    call.on('error', () => stream.destroy());
    stream.pipe(call);
    let trailers: OutgoingHttpHeaders = {};
    call.on('trailers', (t) => (trailers = plain(t)));
    call.on('response', (h) => {
      // grpc-status in the response headers: a trailers-only response (an error), nothing follows.
      if (h['grpc-status'] !== undefined) {
        stream.respond({ ...plain(h), ':status': h[':status'] }, { endStream: true });
        return;
      }
      stream.respond({ ...plain(h), ':status': h[':status'] }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      call.pipe(stream);
    });
    stream.on('close', () => call.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        // Clients may still hold sessions they reopen at once; do not wait for them forever.
        setTimeout(resolve, 2_000).unref();
        server.close(() => resolve());
      }),
  };
}

/**
 * A TLS handshake of its own with Temporal's address, with the configured CA, server name and
 * client pair. The gRPC client keeps retrying a handshake that fails and ends with "Failed to
 * connect before the deadline"; this says why (an untrusted or misnamed server certificate).
 */
import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { TemporalSecurity } from './platform.config';

/** The handshake's error message, or undefined when it succeeds or nothing answers within `timeoutMs`. */
export function tlsHandshakeProblem(
  address: string,
  tls: NonNullable<TemporalSecurity['tls']>,
  timeoutMs = 5_000,
): Promise<string | undefined> {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(colon + 1));
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      // What the certificate is checked against: the configured name, else the host unless it is an address.
      servername: tls.serverName ?? (isIP(host) ? undefined : host),
      ca: tls.serverRootCa,
      cert: tls.clientCert,
      key: tls.clientKey,
      ALPNProtocols: ['h2'],
      timeout: timeoutMs,
    });
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem);
    };
    socket.once('secureConnect', () => done(undefined));
    socket.once('timeout', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND') return done(undefined);
      // Node's own advice (a flag of node) is not the product's fix: TEMPORAL_TLS_CA is.
      done(err.message.replace(/; if the root CA is installed locally.*$/s, ''));
    });
  });
}

/**
 * Why a connection to Temporal failed, in the operator's terms and with the setting to look at.
 * The SDK reports a secured server's refusals in transport terms ("Failed to connect to Temporal
 * server", "received message with invalid compression flag … status: 401 Unauthorized"): a TLS
 * front such as nginx answers a missing or untrusted client certificate with HTTP 400 and a
 * missing API key with 401, and both connections (the CLI's and the worker's) bury that status in
 * their error's causes.
 */
import type { TemporalSecurity } from './platform.config';

/** Every message and detail of the error and its causes, in one string to search. */
function chainText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth += 1) {
    const { message, details } = e as { message?: unknown; details?: unknown };
    parts.push(String(message ?? e), typeof details === 'string' ? details : '');
  }
  return parts.join('\n');
}

/** The innermost message, first line: what the SDK's wrappers hide. */
function innermost(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; (e as { cause?: unknown })?.cause && depth < 6; depth += 1) e = (e as { cause?: unknown }).cause;
  const message = e instanceof Error ? e.message : String(e);
  return message.split('\n')[0] ?? message;
}

/**
 * A specific reason and fix when the error shows one (HTTP 401/400 from a TLS front, an untrusted
 * server certificate), else undefined: the caller then gives its general hint. `handshakeProblem`:
 * what a TLS handshake of its own found (tlsHandshakeProblem), which the gRPC error does not say.
 */
export function explainTemporalConnectFailure(err: unknown, security: TemporalSecurity, handshakeProblem?: string): string | undefined {
  const text = chainText(err);
  if (handshakeProblem)
    return `the TLS handshake failed (${handshakeProblem}): set TEMPORAL_TLS_CA to the CA that issued the server's certificate, and TEMPORAL_TLS_SERVER_NAME when the name in it is not the host of TEMPORAL_ADDRESS`;
  const http = /HTTP status code (\d{3})|status: (\d{3})/.exec(text);
  const status = http ? Number(http[1] ?? http[2]) : undefined;
  if (status === 401 || /UNAUTHENTICATED/.test(text)) {
    return security.apiKey
      ? 'the server refused the API key (401 Unauthorized): check TEMPORAL_API_KEY (valid, not expired, with access to the namespace)'
      : 'the server wants credentials (401 Unauthorized): set TEMPORAL_API_KEY, or TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY for mTLS';
  }
  if (status === 400 && security.tls) {
    return security.tls.clientCert
      ? 'the server refused the client certificate (400 Bad Request, as a TLS proxy answers a certificate it does not trust): TEMPORAL_TLS_CERT must be issued by the CA the server trusts'
      : 'the server wants a client certificate (400 Bad Request, as a TLS proxy answers a connection without one): set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY';
  }
  if (security.tls && /certificate|self[- ]signed|UnknownIssuer|unable to verify|not valid for name|altnames/i.test(text)) {
    return `the server's certificate was not accepted (${innermost(err)}): set TEMPORAL_TLS_CA to the CA that issued it, and TEMPORAL_TLS_SERVER_NAME when the name in it is not the host of TEMPORAL_ADDRESS`;
  }
  return undefined;
}

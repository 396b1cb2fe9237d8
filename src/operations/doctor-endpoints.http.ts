/** `email-rag doctor`'s HTTP probes: the codec server's encode and decode, an OpenID provider's discovery. */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { errorMessage } from '../platform/errors';
import type { CodecServerProbe } from './doctor.port';

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}

const b64 = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('base64');
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data),
});
const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const sameText = (a: Payload | undefined, b: Payload): boolean => a !== undefined && b64(a.data) === b64(b.data);

class Refused extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

async function post(url: string, token: string, payloads: Payload[], timeoutMs: number): Promise<Payload[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ payloads: payloads.map(toJson) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Refused(res.status);
  return ((await res.json()) as { payloads: JsonPayload[] }).payloads.map(fromJson);
}

/**
 * Both directions against this configuration's keys: the server decodes what `codec` encrypted,
 * and `codec` decodes what the server encrypted. Nothing but a fixed sample text is sent.
 */
export async function probeCodecServer(settings: {
  url: string;
  token: string;
  codec: PayloadCodec;
  timeoutMs: number;
}): Promise<CodecServerProbe> {
  const { url, token, codec, timeoutMs } = settings;
  const sample: Payload = {
    metadata: { encoding: new TextEncoder().encode('json/plain') },
    data: new TextEncoder().encode('"email-rag doctor"'),
  };
  const started = performance.now();
  try {
    const decoded = await post(`${url}/decode`, token, await codec.encode([sample]), timeoutMs);
    if (!sameText(decoded[0], sample)) return { outcome: 'mismatch', message: 'it did not decode what this configuration encrypts' };
    const encoded = await post(`${url}/encode`, token, [sample], timeoutMs);
    let back: Payload[];
    try {
      back = await codec.decode(encoded);
    } catch (err) {
      return { outcome: 'mismatch', message: `what it encrypts does not decode here: ${errorMessage(err)}` };
    }
    if (!sameText(back[0], sample)) return { outcome: 'mismatch', message: 'what it encrypts does not decode to the same text here' };
    return { outcome: 'round-trip', ms: Math.round(performance.now() - started) };
  } catch (err) {
    if (err instanceof Refused) return { outcome: 'refused', status: err.status };
    return { outcome: 'unreachable', message: errorMessage(err) };
  }
}

/** The provider's discovery document (`<issuer>/.well-known/openid-configuration`): its issuer and authorization endpoint. */
export async function oidcDiscovery(issuer: string, timeoutMs: number): Promise<{ issuer: string; authorizationEndpoint: string }> {
  const url = `${issuer.replace(/(?<!\/)\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; authorization_endpoint?: unknown };
  if (typeof doc.issuer !== 'string' || typeof doc.authorization_endpoint !== 'string')
    throw new Error(`${url} is no discovery document (no issuer or authorization_endpoint)`);
  return { issuer: doc.issuer, authorizationEndpoint: doc.authorization_endpoint };
}

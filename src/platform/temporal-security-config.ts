import { readFileSync } from 'node:fs';

type Env = Record<string, string | undefined>;

/** How to reach Temporal beyond plain text: mTLS and/or an API key (Temporal Cloud). */
export interface TemporalSecurity {
  /** Set when any TEMPORAL_TLS_* variable is set, or with an API key (which needs TLS). */
  tls?: {
    /** PEM contents, read at start so a missing file is a configuration error, not a late surprise. */
    clientCert?: Buffer;
    clientKey?: Buffer;
    /** Private CA of the cluster; without it the system's trusted roots are used (Temporal Cloud). */
    serverRootCa?: Buffer;
    /** TEMPORAL_TLS_SERVER_NAME: the name the server certificate is checked against (SNI). */
    serverName?: string;
  };
  apiKey?: string;
}

/** AES-256-GCM payload keys by id; new payloads use the active one, any known one decodes. */
export interface PayloadKeys {
  activeKeyId: string;
  keys: Map<string, Buffer>;
}

export interface CodecServerSettings {
  host: string;
  port: number;
  /** CODEC_TOKEN: the bearer token every /encode and /decode request must carry. */
  token?: string;
  /** CODEC_CORS_ORIGINS: browser origins (the Temporal Web UI) allowed to call the endpoint. */
  corsOrigins: string[];
}

export interface SecurityConfig {
  temporal: TemporalSecurity;
  /** Undefined when PAYLOAD_KEYS is not set: payloads go to Temporal as plain JSON. */
  payloadKeys?: PayloadKeys;
  codecServer: CodecServerSettings;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Reads the TLS, API key, payload key and codec server settings; problems are appended to `problems`. */
export function parseSecurityConfig(env: Env, problems: string[]): SecurityConfig {
  const val = (name: string): string | undefined => env[name]?.trim() || undefined;
  const pem = (name: string): Buffer | undefined => {
    const file = val(name);
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      problems.push(`${name} is not a readable file: "${file}" (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      return undefined;
    }
  };

  const temporal: TemporalSecurity = {};
  const certFile = val('TEMPORAL_TLS_CERT');
  const keyFile = val('TEMPORAL_TLS_KEY');
  if (Boolean(certFile) !== Boolean(keyFile))
    problems.push('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together (mTLS client pair)');
  const clientCert = pem('TEMPORAL_TLS_CERT');
  const clientKey = pem('TEMPORAL_TLS_KEY');
  const serverRootCa = pem('TEMPORAL_TLS_CA');
  const serverName = val('TEMPORAL_TLS_SERVER_NAME');
  const tlsFlag = val('TEMPORAL_TLS')?.toLowerCase();
  if (tlsFlag && !['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off'].includes(tlsFlag)) {
    problems.push(`TEMPORAL_TLS must be true or false, got "${tlsFlag}"`);
  }
  temporal.apiKey = val('TEMPORAL_API_KEY');
  const wantsTls =
    Boolean(certFile || keyFile || val('TEMPORAL_TLS_CA') || serverName || temporal.apiKey) ||
    ['1', 'true', 'yes', 'on'].includes(tlsFlag ?? '');
  if (wantsTls) {
    if (['0', 'false', 'no', 'off'].includes(tlsFlag ?? '') && (certFile || temporal.apiKey)) {
      problems.push('TEMPORAL_TLS=false cannot be combined with a client certificate or TEMPORAL_API_KEY');
    }
    temporal.tls = { clientCert, clientKey, serverRootCa, serverName };
  }

  let payloadKeys: PayloadKeys | undefined;
  const rawKeys = val('PAYLOAD_KEYS');
  const activeId = val('PAYLOAD_KEY_ID');
  if (rawKeys) {
    const keys = new Map<string, Buffer>();
    for (const entry of rawKeys
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon).trim() : '';
      const b64 = colon > 0 ? entry.slice(colon + 1).trim() : '';
      // Never echo key material into an error message: only the id.
      if (!KEY_ID.test(id)) {
        problems.push('PAYLOAD_KEYS entries must be id:base64key, the id 1-64 of A-Z a-z 0-9 . _ -');
        continue;
      }
      const key = /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
      if (key.length !== 32) problems.push(`PAYLOAD_KEYS key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)`);
      else if (keys.has(id)) problems.push(`PAYLOAD_KEYS names key "${id}" twice`);
      else keys.set(id, key);
    }
    const active = activeId ?? (keys.size === 1 ? [...keys.keys()][0] : undefined);
    if (!active) problems.push('PAYLOAD_KEY_ID must name the active key when PAYLOAD_KEYS holds more than one');
    else if (!keys.has(active)) problems.push(`PAYLOAD_KEY_ID "${active}" is not among the ids in PAYLOAD_KEYS`);
    else payloadKeys = { activeKeyId: active, keys };
  } else if (activeId) {
    problems.push('PAYLOAD_KEY_ID is set but PAYLOAD_KEYS is empty');
  }

  const rawPort = val('CODEC_PORT');
  let port = 8234;
  if (rawPort) {
    const n = Number(rawPort);
    if (Number.isInteger(n) && n >= 0 && n <= 65535) port = n;
    else problems.push(`CODEC_PORT must be a whole number between 0 and 65535, got "${rawPort}"`);
  }
  const corsOrigins = (val('CODEC_CORS_ORIGINS') ?? 'http://127.0.0.1:8233,http://localhost:8233')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      problems.push(`CODEC_CORS_ORIGINS entries must be origins like https://temporal-ui.example, got "${origin}"`);
  }
  const token = env.CODEC_TOKEN?.trim() || undefined;
  if (token && token.length < 16) problems.push('CODEC_TOKEN must be at least 16 characters (openssl rand -hex 32)');
  return {
    temporal,
    payloadKeys,
    codecServer: { host: val('CODEC_HOST') ?? '127.0.0.1', port, token, corsOrigins },
  };
}

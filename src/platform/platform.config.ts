/**
 * What every feature shares, as the configuration names it: how to reach Temporal (address,
 * namespace, task queue, TLS, API key), MariaDB, the payload encryption keys and codec server, and
 * the level of the logs.
 */
import { envValues, type Env } from './env-values';
import { LOG_LEVELS, type LogLevelSetting } from './logger';

/** Where Temporal and MariaDB are, and how the payloads reach Temporal. */
export interface PlatformConfig {
  temporal: { address: string; namespace: string; taskQueue: string };
  databaseUrl: string;
  /** TLS / API key for Temporal, payload encryption keys, the codec server. */
  security: SecurityConfig;
  /** LOG_LEVEL: the least severe log line every process writes (`silent`: none). */
  logLevel: LogLevelSetting;
  /** What the operator should change though it still works (a renamed setting): told at every start. */
  warnings?: string[];
}

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

/** TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, DATABASE_URL, LOG_LEVEL and the security settings. */
export function readPlatformConfig(env: Env, problems: string[]): PlatformConfig {
  const v = envValues(env, problems);
  return {
    temporal: {
      address: v.text('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
      namespace: v.text('TEMPORAL_NAMESPACE', 'default'),
      taskQueue: v.text('TEMPORAL_TASK_QUEUE', 'email-rag'),
    },
    databaseUrl: v.url('DATABASE_URL', ['mariadb:', 'mysql:'], 'mariadb://root@127.0.0.1:3306/email_rag') ?? '',
    security: readSecurityConfig(env, problems),
    logLevel: v.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
  };
}

/** Reads the TLS, API key, payload key and codec server settings; problems are appended to `problems`. */
export function readSecurityConfig(env: Env, problems: string[]): SecurityConfig {
  const v = envValues(env, problems);
  const temporal: TemporalSecurity = {};
  const certFile = v.optional('TEMPORAL_TLS_CERT');
  const keyFile = v.optional('TEMPORAL_TLS_KEY');
  if (Boolean(certFile) !== Boolean(keyFile))
    problems.push('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together (mTLS client pair)');
  // A file without PEM (empty, DER, a path mix-up) is told here, not as a handshake failure later.
  const pem = (name: string, what: string): Buffer | undefined => {
    const contents = v.fileContents(name);
    if (contents && !contents.includes('-----BEGIN '))
      problems.push(`${name} names a file without a PEM ${what} (-----BEGIN …): "${v.optional(name)}"`);
    return contents;
  };
  const clientCert = pem('TEMPORAL_TLS_CERT', 'certificate');
  const clientKey = pem('TEMPORAL_TLS_KEY', 'private key');
  const serverRootCa = pem('TEMPORAL_TLS_CA', 'CA certificate');
  const serverName = v.optional('TEMPORAL_TLS_SERVER_NAME');
  const tlsFlag = v.boolean('TEMPORAL_TLS', undefined);
  temporal.apiKey = v.optional('TEMPORAL_API_KEY');
  const wantsTls = Boolean(certFile || keyFile || v.optional('TEMPORAL_TLS_CA') || serverName || temporal.apiKey) || tlsFlag === true;
  if (wantsTls) {
    if (tlsFlag === false && (certFile || temporal.apiKey)) {
      problems.push('TEMPORAL_TLS=false cannot be combined with a client certificate or TEMPORAL_API_KEY');
    }
    temporal.tls = { clientCert, clientKey, serverRootCa, serverName };
  }
  return {
    temporal,
    payloadKeys: readPayloadKeys(v.optional('PAYLOAD_KEYS'), v.optional('PAYLOAD_KEY_ID'), problems),
    codecServer: readCodecServer(env, problems),
  };
}

/** PAYLOAD_KEYS (`id:base64key,…`) and PAYLOAD_KEY_ID, the active key. */
function readPayloadKeys(rawKeys: string | undefined, activeId: string | undefined, problems: string[]): PayloadKeys | undefined {
  if (!rawKeys) {
    if (activeId) problems.push('PAYLOAD_KEY_ID is set but PAYLOAD_KEYS is empty');
    return undefined;
  }
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
  else return { activeKeyId: active, keys };
  return undefined;
}

/** CODEC_HOST, CODEC_PORT, CODEC_TOKEN and CODEC_CORS_ORIGINS: the codec server of the Web UI. */
function readCodecServer(env: Env, problems: string[]): CodecServerSettings {
  const v = envValues(env, problems);
  const port = v.intInRange('CODEC_PORT', 8234, 0, 65535);
  const corsOrigins = (v.optional('CODEC_CORS_ORIGINS') ?? 'http://127.0.0.1:8233,http://localhost:8233')
    .split(',')
    .map((o) => o.trim().replace(/(?<!\/)\/+$/, ''))
    .filter(Boolean);
  for (const origin of corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      problems.push(`CODEC_CORS_ORIGINS entries must be origins like https://temporal-ui.example, got "${origin}"`);
  }
  const token = v.optional('CODEC_TOKEN');
  if (token && token.length < 16) problems.push('CODEC_TOKEN must be at least 16 characters (openssl rand -hex 32)');
  return { host: v.optional('CODEC_HOST') ?? '127.0.0.1', port, token, corsOrigins };
}

import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import type { Config } from '../platform/config';
import { createEncryptionCodec } from './encryption-codec';

/**
 * What every connection to Temporal needs (worker's NativeConnection and every Client alike):
 * the address, mTLS and/or API key from the validated config. Plain text when none is set.
 */
export function temporalConnectionOptions(config: Config): { address: string; tls?: TLSConfig; apiKey?: string } {
  const { tls, apiKey } = config.security.temporal;
  return {
    address: config.temporal.address,
    ...(tls
      ? {
          tls: {
            ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
            ...(tls.serverRootCa ? { serverRootCACertificate: tls.serverRootCa } : {}),
            ...(tls.clientCert && tls.clientKey ? { clientCertPair: { crt: tls.clientCert, key: tls.clientKey } } : {}),
          },
        }
      : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/**
 * The encryption codec when PAYLOAD_KEYS is set, with failure messages encoded too; otherwise the
 * SDK's plain JSON converter. Codecs run outside the workflow sandbox; only the failure converter
 * is bundled with the workflows (the worker passes its path to the bundler).
 */
export function temporalDataConverter(config: Config): DataConverter | undefined {
  const keys = config.security.payloadKeys;
  return keys ? { payloadCodecs: [createEncryptionCodec(keys)], failureConverterPath: require.resolve('./failure-converter') } : undefined;
}

/** A Client on its own connection, with the project's connection options and data converter. */
export async function connectTemporalClient(
  config: Config,
  opts: { connectTimeout?: number } = {},
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ ...temporalConnectionOptions(config), ...opts });
  const dataConverter = temporalDataConverter(config);
  return {
    connection,
    client: new Client({ connection, namespace: config.temporal.namespace, ...(dataConverter ? { dataConverter } : {}) }),
  };
}

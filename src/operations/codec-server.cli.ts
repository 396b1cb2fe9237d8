import { createCodecServer } from './codec-server.http';
import { createEncryptionCodec } from '../platform/encryption-codec';
import type { Config } from '../platform/config';
import { createLogger, createStructuredLogger, type LogDestination } from '../platform/logger';
import { CliError } from '../platform/cli-context';
import type { CliCommand } from '../platform/cli-command';

const logger = createLogger('codec-server');

/**
 * Starts the codec server on CODEC_HOST:CODEC_PORT; resolves with its URL and a way to stop it.
 * Its log lines go to stderr at LOG_LEVEL, or to `logDestination`.
 */
export async function startCodecServer(
  config: Config,
  options: { logDestination?: LogDestination } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const { payloadKeys, codecServer } = config.security;
  if (!payloadKeys) throw new CliError('PAYLOAD_KEYS is not set: there is nothing to decode (payloads are stored as plain JSON)', 2);
  if (!codecServer.token)
    throw new CliError('CODEC_TOKEN is required: the codec server shows decrypted personal data (openssl rand -hex 32)', 2);
  const app = createCodecServer({
    codec: createEncryptionCodec(payloadKeys),
    token: codecServer.token,
    corsOrigins: codecServer.corsOrigins,
    logger: createStructuredLogger('codec-server', { level: config.logLevel, destination: options.logDestination }),
  });
  try {
    await app.listen({ host: codecServer.host, port: codecServer.port });
  } catch (err) {
    throw new CliError(`cannot listen on ${codecServer.host}:${codecServer.port}: ${(err as Error).message} (set CODEC_PORT)`, 3);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : codecServer.port;
  const host = codecServer.host.includes(':') ? `[${codecServer.host}]` : codecServer.host;
  return { url: `http://${host}:${port}`, close: () => app.close() };
}

/** `email-rag codec-server`: runs until SIGTERM/SIGINT. */
export async function runCodecServer(config: Config): Promise<void> {
  const server = await startCodecServer(config);
  logger.info('codec server listening', {
    url: server.url,
    activeKeyId: config.security.payloadKeys?.activeKeyId,
    keyIds: [...(config.security.payloadKeys?.keys.keys() ?? [])],
    corsOrigins: config.security.codecServer.corsOrigins,
  });
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve, resolve);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

export const codecServerCommand: CliCommand<void> = {
  name: 'codec-server',
  usage: 'codec-server                            decrypt payloads for the Web UI / temporal CLI (CODEC_PORT, CODEC_TOKEN)',
  run: (ctx) => runCodecServer(ctx.config()),
};

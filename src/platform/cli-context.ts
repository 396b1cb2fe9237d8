import type { Client } from '@temporalio/client';
import { connectTemporalClient } from './temporal-connection';
import { explainTemporalConnectFailure } from './temporal-connect-error';
import { tlsHandshakeProblem } from './temporal-tls-probe';
import { checkDatabaseLimits } from './limits.mariadb';
import { createPool, type Pool } from './pool.mariadb';
import type { Config } from '../platform/config';
import { errorMessage } from './errors';

/** A failure the CLI reports as one line with a hint, never as a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export async function connectTemporal(config: Config): Promise<{ client: Client; close(): Promise<void> }> {
  let temporal: Awaited<ReturnType<typeof connectTemporalClient>>;
  try {
    temporal = await connectTemporalClient(config, { connectTimeout: 5_000 });
    await temporal.connection.workflowService.getSystemInfo({});
  } catch (err) {
    const { tls } = config.security.temporal;
    const handshake = tls ? await tlsHandshakeProblem(config.temporal.address, tls) : undefined;
    const why =
      explainTemporalConnectFailure(err, config.security.temporal, handshake) ??
      `${errorMessage(err)} (start it, or set TEMPORAL_ADDRESS; TEMPORAL_TLS_* / TEMPORAL_API_KEY for a secured cluster)`;
    throw new CliError(`cannot reach Temporal at ${config.temporal.address}: ${why}`, 3);
  }
  return { client: temporal.client, close: () => temporal.connection.close() };
}

/** `storesMail`: the command writes raw mail, so the server's packet limit is checked first. */
export async function connectDatabase(config: Config, opts: { storesMail?: boolean; connections?: number } = {}): Promise<Pool> {
  // A person is waiting: fail within seconds rather than the worker's patient 10 s.
  const pool = createPool(config.databaseUrl, opts.connections ?? 2, 4_000);
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    const where = config.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
    throw new CliError(`cannot reach MariaDB at ${where}: ${errorMessage(err).split('\n')[0]} (run npm run setup, or set DATABASE_URL)`, 3);
  }
  if (opts.storesMail) {
    try {
      await checkDatabaseLimits(pool, config.imap.maxMessageBytes);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new CliError(errorMessage(err), 2);
    }
  }
  return pool;
}

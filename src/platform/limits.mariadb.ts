import { ConfigError } from './errors';
import { createPool, maxAllowedPacket, type Queryable } from './pool.mariadb';

/** Raw mail is written in chunks of this size, so no statement depends on the message size. */
export const RAW_CHUNK_BYTES = 1024 * 1024;
/** The stored text of one email is cut here (a draft never needs more; MEDIUMTEXT and packets stay safe). */
export const MAX_STORED_TEXT_CHARS = 500_000;
/**
 * The largest statement the product sends: a raw chunk or the parsed text, escaped. Every
 * MariaDB since 10.2 defaults to 16 MiB and MySQL 5.7 to 4 MiB, so this holds on stock servers.
 */
export const MIN_MAX_ALLOWED_PACKET = 4 * 1024 * 1024;

/**
 * Checked at start (worker and CLI): a server whose max_allowed_packet is below what one
 * statement can need would drop the connection on large mail, which looks like an outage.
 */
export async function checkDatabaseLimits(db: Queryable, maxMessageBytes: number): Promise<{ maxAllowedPacket: number }> {
  const limit = await maxAllowedPacket(db);
  const problem = databaseLimitProblem(limit, maxMessageBytes);
  if (problem) throw new ConfigError(problem);
  return { maxAllowedPacket: limit };
}

/** One line naming both values and the fix, or null when the server's limit is enough. */
export function databaseLimitProblem(maxAllowedPacket: number, maxMessageBytes: number): string | null {
  if (maxAllowedPacket >= MIN_MAX_ALLOWED_PACKET) return null;
  return (
    `MariaDB max_allowed_packet is ${maxAllowedPacket} bytes, below the ${MIN_MAX_ALLOWED_PACKET} needed to store mail up to ` +
    `MAX_MESSAGE_BYTES=${maxMessageBytes} (in ${RAW_CHUNK_BYTES}-byte chunks): raise it on the server ` +
    `(SET GLOBAL max_allowed_packet = 67108864, and max_allowed_packet = 64M under [mysqld])`
  );
}

/**
 * The worker's start check: a server that is down now is waited out later like any outage
 * (returns null), but one whose limits cannot work is refused (ConfigError).
 */
export async function checkDatabaseLimitsAt(databaseUrl: string, maxMessageBytes: number): Promise<{ maxAllowedPacket: number } | null> {
  const pool = createPool(databaseUrl, 1, 5_000);
  try {
    return await checkDatabaseLimits(pool, maxMessageBytes);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    return null;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/**
 * The sign-in counters of the review inbox (table inbox_login_throttle), shared by every inbox
 * process. An attempt is claimed in one transaction that locks the account's and the address's
 * rows, judges them and counts the attempt as a failure before the password is checked: fifty
 * parallel guesses at one name serialise on the row lock and get the same answers as fifty in a
 * row. A successful sign-in then takes its provisional failure back.
 */
import {
  accountAfterFailure,
  addressAfterFailure,
  judgeAttempt,
  LOGIN_THROTTLE,
  type ThrottleCounter,
  type ThrottleVerdict,
} from './login-throttle-policy';
import { classifyDbError, query, type Pool } from '../platform/pool.mariadb';

interface Row {
  scope: 'account' | 'address';
  failures: number;
  window_started_at: Date;
  last_failure_at: Date | null;
  next_attempt_at: Date | null;
  now: Date;
}

const counter = (r: Row | undefined, now: Date): ThrottleCounter =>
  r
    ? {
        failures: Number(r.failures),
        windowStartedAt: r.window_started_at,
        lastFailureAt: r.last_failure_at,
        nextAttemptAt: r.next_attempt_at,
      }
    : { failures: 0, windowStartedAt: now, lastFailureAt: null, nextAttemptAt: null };

export type LoginClaim = ThrottleVerdict & { accountFailures: number; addressFailures: number };

/** One transaction: both rows locked (in key order), judged, and the attempt counted as failed. */
async function claimLocked(pool: Pool, account: string, address: string): Promise<LoginClaim> {
  const conn = await pool.getConnection();
  try {
    await conn.beginTransaction();
    const rows = (await conn.query(
      `SELECT scope, failures, window_started_at, last_failure_at, next_attempt_at, CURRENT_TIMESTAMP(3) AS now
         FROM inbox_login_throttle WHERE (scope = 'account' AND subject = ?) OR (scope = 'address' AND subject = ?)
        ORDER BY scope, subject FOR UPDATE`,
      [account, address],
    )) as Row[];
    const now = rows[0]?.now ?? new Date();
    const acc = counter(
      rows.find((r) => r.scope === 'account'),
      now,
    );
    const adr = counter(
      rows.find((r) => r.scope === 'address'),
      now,
    );
    const verdict = judgeAttempt(acc, adr, now);
    if (!verdict.ok) {
      await conn.commit();
      return { ...verdict, accountFailures: acc.failures, addressFailures: adr.failures };
    }
    const nextAcc = accountAfterFailure(acc, now);
    const nextAdr = addressAfterFailure(adr, now);
    for (const [scope, subject, c] of [
      ['account', account, nextAcc],
      ['address', address, nextAdr],
    ] as const) {
      await conn.query(
        `UPDATE inbox_login_throttle SET failures = ?, window_started_at = ?, last_failure_at = ?, next_attempt_at = ?
          WHERE scope = ? AND subject = ?`,
        [c.failures, c.windowStartedAt, c.lastFailureAt, c.nextAttemptAt, scope, subject],
      );
    }
    await conn.commit();
    return { ok: true, accountFailures: nextAcc.failures, addressFailures: nextAdr.failures };
  } catch (err) {
    await conn.rollback().catch(() => undefined);
    throw err;
  } finally {
    await conn.release();
  }
}

export function createMariaDbLoginThrottle(pool: Pool) {
  return {
    /** Judges an attempt by `account` from `address` and, when it may go ahead, counts it as failed. */
    async claim(account: string, address: string): Promise<LoginClaim> {
      // The rows exist before the transaction: an INSERT inside it would take shared locks that
      // parallel claims then deadlock on when they upgrade them.
      await query(
        pool,
        'claiming a sign-in attempt',
        `INSERT IGNORE INTO inbox_login_throttle (scope, subject) VALUES ('account', ?), ('address', ?)`,
        [account, address],
      );
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await claimLocked(pool, account, address);
        } catch (err) {
          if ((err as { code?: string }).code !== 'ER_LOCK_DEADLOCK' || attempt >= 3)
            throw classifyDbError(err, 'claiming a sign-in attempt');
        }
      }
    },

    /** The claimed attempt succeeded: the name starts afresh, the address gets its failure back. */
    async succeeded(account: string, address: string): Promise<void> {
      await query(
        pool,
        'clearing the sign-in failures of a name',
        `DELETE FROM inbox_login_throttle WHERE scope = 'account' AND subject = ?`,
        [account],
      );
      await query(
        pool,
        'taking back a sign-in failure of an address',
        `UPDATE inbox_login_throttle
            SET next_attempt_at = IF(failures > ?, next_attempt_at, NULL), failures = GREATEST(failures, 1) - 1
          WHERE scope = 'address' AND subject = ?`,
        [LOGIN_THROTTLE.address.lockAfter, address],
      );
    },

    /** Lifts a name's delay or lock (an operator's `email-rag inbox users unlock`, a new password). */
    async clearAccount(account: string): Promise<boolean> {
      const r = await query<{ affectedRows: number }>(
        pool,
        'lifting the sign-in lock of a name',
        `DELETE FROM inbox_login_throttle WHERE scope = 'account' AND subject = ?`,
        [account],
      );
      return r.affectedRows > 0;
    },
  };
}
export type LoginThrottle = ReturnType<typeof createMariaDbLoginThrottle>;

/**
 * The review inbox's refused sign-ins, counted from their audit rows for the worker's metrics
 * (`email_rag_inbox_login_refusals_total`): the operating figures ask through their port
 * (`SignInRefusals`), so the inbox's event words stay in this feature.
 */
import type { SignInRefusals } from '../operations';
import { LOGIN_REFUSAL_REASONS, type LoginRefusalReason, REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
import { query, type Queryable } from '../platform/pool.mariadb';

export function createMariaDbSignInRefusals(pool: Queryable): SignInRefusals {
  return { refusalsBetween: (from, to) => loginRefusalsBetween(pool, from, to) };
}

/** Refused review-inbox sign-ins (their audit rows) in the window, per reason. */
async function loginRefusalsBetween(pool: Queryable, from: Date, to: Date): Promise<Array<{ reason: LoginRefusalReason; count: number }>> {
  const rows = await query<Array<{ reason: string | null; n: number }>>(
    pool,
    'reading the refused sign-ins',
    // A row over the burst limit stands for details.count refusals (one row per address and 10 s).
    `SELECT JSON_VALUE(details, '$.reason') AS reason, SUM(COALESCE(JSON_VALUE(details, '$.count'), 1)) AS n FROM audit_log
      WHERE event_type = ? AND created_at > ? AND created_at <= ? GROUP BY reason`,
    [REVIEW_INBOX_AUDIT_EVENTS.loginRefused, from, to],
  );
  const known = new Set<string>(LOGIN_REFUSAL_REASONS);
  // A reason the code does not know (an odd row) is not a label value of its own.
  return rows.filter((r) => r.reason && known.has(r.reason)).map((r) => ({ reason: r.reason as LoginRefusalReason, count: Number(r.n) }));
}

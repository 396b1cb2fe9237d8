/**
 * A reviewer who opens a case holds it for a few minutes (cases.claimed_by / claimed_until), so
 * others see that someone is on it. A claim is advice, not a lock: decisions stay possible for
 * everyone, and the draft id a decision names settles any race.
 */
import { CASE_ROUTING_EVENTS } from './cases.contract';
import type { CaseClaim, CaseClaims } from './case-claims.port';
import { query, type Pool } from '../platform/pool.mariadb';
import { insertCaseEvent } from './case-events.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';

interface ClaimRow {
  claimed_by: string | null;
  claimed_until: Date | null;
  /** 1 when the claim ran out. */
  expired: number | null;
}

export function createMariaDbCaseClaims(pool: Pool): CaseClaims {
  return {
    claim(caseId, by, seconds) {
      return inTransaction(pool, 'claiming a case', async (conn) => {
        // The row lock orders two reviewers claiming at once; the UPDATE's condition decides.
        const [before] = await query<ClaimRow[]>(
          conn,
          'reading the claim of a case',
          'SELECT claimed_by, claimed_until, claimed_until < NOW(3) AS expired FROM cases WHERE id = ? FOR UPDATE',
          [caseId],
        );
        if (!before) return { claimed: false, holder: null, tookOverFrom: null };
        const res = await query<{ affectedRows: number }>(
          conn,
          'claiming a case',
          `UPDATE cases SET claimed_by = ?, claimed_until = NOW(3) + INTERVAL ? SECOND
           WHERE id = ? AND (claimed_by IS NULL OR claimed_until < NOW(3) OR claimed_by = ?)`,
          [by, Math.max(1, Math.floor(seconds)), caseId, by],
        );
        const claimed = res.affectedRows > 0;
        // Taking over a claim that another reviewer let run out is history; a fresh claim is not.
        const tookOverFrom =
          claimed && before.claimed_by && before.claimed_by !== by && Number(before.expired) === 1 ? before.claimed_by : null;
        if (tookOverFrom)
          await insertCaseEvent(
            conn,
            {
              caseId,
              emailId: null,
              eventType: CASE_ROUTING_EVENTS.claimTakenOver,
              actor: by,
              message: `${by} took over the case; ${tookOverFrom}'s claim had expired`,
              details: { from: tookOverFrom, expiredAt: before.claimed_until },
              eventKey: `${CASE_ROUTING_EVENTS.claimTakenOver}:${caseId}:${tookOverFrom}:${before.claimed_until?.getTime() ?? 0}`,
            },
            'recording a claim taken over',
          );
        const [after] = await query<ClaimRow[]>(
          conn,
          'reading the claim of a case',
          'SELECT claimed_by, claimed_until, NULL AS expired FROM cases WHERE id = ?',
          [caseId],
        );
        const holder: CaseClaim | null =
          after?.claimed_by && after.claimed_until ? { by: after.claimed_by, until: after.claimed_until } : null;
        return { claimed, holder, tookOverFrom };
      });
    },

    async release(caseId, by) {
      const res = await query<{ affectedRows: number }>(
        pool,
        'releasing a case',
        'UPDATE cases SET claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?',
        [caseId, by],
      );
      return res.affectedRows > 0;
    },

    async current(caseId) {
      const rows = await query<Array<{ claimed_by: string; claimed_until: Date }>>(
        pool,
        'reading the claim of a case',
        'SELECT claimed_by, claimed_until FROM cases WHERE id = ? AND claimed_by IS NOT NULL AND claimed_until >= NOW(3)',
        [caseId],
      );
      const r = rows[0];
      return r ? { by: r.claimed_by, until: r.claimed_until } : null;
    },
  };
}

/**
 * Earned autonomy in MariaDB (migration 023): the switch, the stops, the pending automatic sends,
 * a category's record read from `draft_outcomes` (migration 016) and its standing (migration 032).
 */
import { AUTO_SEND_STATES, type AutoSendState } from './autonomy.contract';
import { AUTONOMY_ACTOR_LIKE, DRAFT_OUTCOME, DRAFT_STATUS } from '../drafting';
import type { AutonomyFigures, AutonomyStore, AutonomySwitch, NewPendingAutoSend, PendingAutoSend } from './autonomy.port';
import { query, type Pool } from '../platform/pool.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { wilsonInterval } from '../platform/wilson-interval';
import type { ReplayEvidence, ReplayEvidenceReader } from './replay-evidence';

interface PendingRow {
  draft_id: string;
  email_id: string;
  mailbox_id: string;
  category: string;
  send_after: Date;
  policy: string;
  /** The driver hands a JSON column back parsed. */
  figures: string | AutonomyFigures;
  state: AutoSendState;
  reason: string | null;
  updated_at: Date;
}

/** Figures as stored; rows of 1.3 lack the lower bound, which follows from their counts. */
function figuresOf(stored: string | AutonomyFigures): AutonomyFigures {
  const f = typeof stored === 'string' ? (JSON.parse(stored) as AutonomyFigures) : stored;
  return typeof f.lower === 'number' ? f : { ...f, lower: wilsonInterval(f.unchanged, f.reviewed).lower };
}

const toPending = (r: PendingRow): PendingAutoSend => ({
  draftId: r.draft_id,
  emailId: r.email_id,
  mailboxId: r.mailbox_id,
  category: r.category,
  sendAfter: r.send_after,
  policy: r.policy,
  figures: figuresOf(r.figures),
  state: r.state,
  reason: r.reason,
  updatedAt: r.updated_at,
});

/**
 * Drafts an automatic send approved were judged by no person: they stay in `draft_outcomes` (the
 * quality figures show what was sent) but never earn a category its own autonomy. LIKE's escape
 * keeps the prefix literal.
 */
const BY_A_PERSON = `(o.decided_by IS NULL OR o.decided_by NOT LIKE '${AUTONOMY_ACTOR_LIKE}')`;

/**
 * `replayEvidence` reads what named replay runs add to a record (the replay feature's
 * `createMariaDbReplayEvidence`); without it a policy that names runs cannot be judged and says so.
 */
export function createMariaDbAutonomyStore(pool: Pool, replayEvidence?: ReplayEvidenceReader): AutonomyStore {
  const switchState = async (): Promise<AutonomySwitch> => {
    const rows = await query<Array<{ state: string; changed_by: string | null; changed_at: Date | null }>>(
      pool,
      'reading the autonomy switch',
      'SELECT state, changed_by, changed_at FROM autonomy_switch WHERE id = 1',
    );
    const r = rows[0];
    // No row is the default: off.
    return { on: r?.state === 'on', by: r?.changed_by ?? null, at: r?.changed_at ?? null };
  };
  const pending = async (draftId: string): Promise<PendingAutoSend | null> => {
    const rows = await query<PendingRow[]>(pool, 'reading an automatic send', 'SELECT * FROM autonomy_pending WHERE draft_id = ?', [
      draftId,
    ]);
    return rows[0] ? toPending(rows[0]) : null;
  };
  return {
    switchState,
    async setSwitch(on, by) {
      await query(
        pool,
        'setting the autonomy switch',
        `INSERT INTO autonomy_switch (id, state, changed_by, changed_at) VALUES (1, ?, ?, CURRENT_TIMESTAMP(3))
         ON DUPLICATE KEY UPDATE state = VALUES(state), changed_by = VALUES(changed_by), changed_at = VALUES(changed_at)`,
        [on ? 'on' : 'off', by],
      );
      return switchState();
    },
    async record(mailboxId, category, lastN) {
      const rows = await query<Array<{ reviewed: number | bigint; unchanged: number | bigint | null }>>(
        pool,
        'reading a category record',
        `SELECT COUNT(*) AS reviewed, SUM(t.outcome = '${DRAFT_OUTCOME.approvedUnchanged}') AS unchanged FROM (
           SELECT o.outcome FROM draft_outcomes o
            WHERE o.mailbox_id = ? AND o.category = ? AND ${BY_A_PERSON}
            ORDER BY o.decided_at DESC, o.draft_id DESC LIMIT ?) t`,
        [mailboxId, category, lastN],
      );
      return { reviewed: Number(rows[0]?.reviewed ?? 0), unchanged: Number(rows[0]?.unchanged ?? 0) };
    },
    async replayRecord(mailboxId, category, runIds, limit): Promise<ReplayEvidence> {
      if (!replayEvidence)
        throw new Error('this autonomy store was made without the replay evidence reader: named replay runs cannot be read');
      return replayEvidence.replayRecord(mailboxId, category, runIds, limit);
    },
    async noteStanding(st, audit) {
      const figures = [st.qualified ? 1 : 0, st.reviewed, st.unchanged, st.lower];
      // Most verdicts change nothing: they keep the figures up to date without a transaction.
      const known = await query<Array<{ qualified: number }>>(
        pool,
        'reading a category standing',
        'SELECT qualified FROM autonomy_standing WHERE mailbox_id = ? AND category = ?',
        [st.mailboxId, st.category],
      );
      const moves = known.length > 0 && Number(known[0]!.qualified) !== figures[0];
      // A change conditional on the old value: of two verdicts at once only one moves it; its
      // audit row in the same transaction, so neither is written without the other.
      const change = !moves
        ? null
        : await inTransaction(pool, 'changing a category standing', async (conn) => {
            const moved = await query<{ affectedRows: number }>(
              conn,
              'changing a category standing',
              `UPDATE autonomy_standing SET qualified = ?, reviewed = ?, unchanged = ?, lower_bound = ?, judged_at = CURRENT_TIMESTAMP(3),
           version = version + 1,
           last_demoted_at = IF(? = 0, CURRENT_TIMESTAMP(3), last_demoted_at), last_promoted_at = IF(? = 1, CURRENT_TIMESTAMP(3), last_promoted_at)
         WHERE mailbox_id = ? AND category = ? AND qualified <> ?`,
              [...figures, figures[0], figures[0], st.mailboxId, st.category, figures[0]],
            );
            if (moved.affectedRows === 0) return null;
            // The row is locked by the UPDATE until the commit: the version read is this change's.
            const [row] = await query<Array<{ version: number }>>(
              conn,
              'reading a category standing version',
              'SELECT version FROM autonomy_standing WHERE mailbox_id = ? AND category = ?',
              [st.mailboxId, st.category],
            );
            const made = st.qualified ? 'promoted' : 'demoted';
            await createMariaDbAuditLog(conn).record(audit({ change: made, version: Number(row!.version) }));
            return made;
          });
      if (change) return change;
      await query(
        pool,
        'recording a category standing',
        `INSERT INTO autonomy_standing (mailbox_id, category, qualified, reviewed, unchanged, lower_bound) VALUES (?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE reviewed = VALUES(reviewed), unchanged = VALUES(unchanged), lower_bound = VALUES(lower_bound),
           judged_at = CURRENT_TIMESTAMP(3)`,
        [st.mailboxId, st.category, ...figures],
      );
      return null;
    },
    async standings() {
      const rows = await query<
        Array<{
          mailbox_id: string;
          category: string;
          qualified: number;
          reviewed: number;
          unchanged: number;
          lower_bound: number;
          judged_at: Date;
          last_demoted_at: Date | null;
          last_promoted_at: Date | null;
        }>
      >(pool, 'reading the category standings', 'SELECT * FROM autonomy_standing ORDER BY mailbox_id, category');
      return rows.map((r) => ({
        mailboxId: r.mailbox_id,
        category: r.category,
        qualified: Number(r.qualified) === 1,
        reviewed: Number(r.reviewed),
        unchanged: Number(r.unchanged),
        lower: Number(r.lower_bound),
        judgedAt: r.judged_at,
        lastDemotedAt: r.last_demoted_at,
        lastPromotedAt: r.last_promoted_at,
      }));
    },
    async categoriesWithOutcomes() {
      const rows = await query<Array<{ mailbox_id: string; category: string }>>(
        pool,
        'listing categories with outcomes',
        'SELECT DISTINCT mailbox_id, category FROM draft_outcomes ORDER BY mailbox_id, category',
      );
      return rows.map((r) => ({ mailboxId: r.mailbox_id, category: r.category }));
    },
    async stop(emailId, draftId, by) {
      await query(
        pool,
        'stopping an automatic send',
        'INSERT IGNORE INTO autonomy_stops (draft_id, email_id, stopped_by) VALUES (?, ?, ?)',
        [draftId, emailId, by],
      );
      await query(
        pool,
        'marking an automatic send stopped',
        `UPDATE autonomy_pending SET state = '${AUTO_SEND_STATES.stopped}', reason = ? WHERE draft_id = ? AND state = '${AUTO_SEND_STATES.pending}'`,
        [`stopped by ${by}`.slice(0, 1000), draftId],
      );
      return (await pending(draftId))?.state ?? null;
    },
    async stoppedBy(draftId) {
      const rows = await query<Array<{ stopped_by: string }>>(
        pool,
        'reading a stop',
        'SELECT stopped_by FROM autonomy_stops WHERE draft_id = ?',
        [draftId],
      );
      return rows[0]?.stopped_by ?? null;
    },
    async savePending(p: NewPendingAutoSend) {
      await query(
        pool,
        'recording an automatic send',
        `INSERT IGNORE INTO autonomy_pending (draft_id, email_id, mailbox_id, category, send_after, policy, figures)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [p.draftId, p.emailId, p.mailboxId, p.category.slice(0, 100), p.sendAfter, p.policy.slice(0, 191), JSON.stringify(p.figures)],
      );
      const saved = await pending(p.draftId);
      if (!saved) throw new Error(`automatic send of ${p.draftId} vanished right after it was recorded`);
      return saved;
    },
    pending,
    async settle(draftId, to, reason, from = AUTO_SEND_STATES.pending) {
      const res = await query<{ affectedRows: number }>(
        pool,
        'settling an automatic send',
        'UPDATE autonomy_pending SET state = ?, reason = ? WHERE draft_id = ? AND state = ?',
        [to, reason.slice(0, 1000), draftId, from],
      );
      return res.affectedRows > 0;
    },
    async listPending(emailId) {
      const rows = await query<PendingRow[]>(
        pool,
        'listing automatic sends',
        // A draft a person decided, or a newer draft replaced, will not be sent automatically: not listed.
        `SELECT p.* FROM autonomy_pending p JOIN drafts d ON d.id = p.draft_id AND d.status = '${DRAFT_STATUS.awaitingApproval}'
          WHERE p.state = '${AUTO_SEND_STATES.pending}' ${emailId === undefined ? '' : 'AND p.email_id = ?'}
          ORDER BY p.send_after, p.draft_id LIMIT 500`,
        emailId === undefined ? [] : [emailId],
      );
      return rows.map(toPending);
    },
  };
}

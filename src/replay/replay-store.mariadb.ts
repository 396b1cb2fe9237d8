/** The replay's tables in MariaDB (migrations 033, 034). */
import { query, type Pool, type Queryable } from '../platform/pool.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';
import type { HistoryMail } from './replay-context';
import { REPLAY_RESULT_STATE, REPLAY_RUN_STATUS, type ReplayDirection } from './replay.contract';
import type { ReplayPairInput, ReplayReportRow, ReplayResultRow, ReplayRunView, ReplayStore } from './replay-store.port';

/** Rows per INSERT: well inside max_allowed_packet for mail bodies. */
const INSERT_BATCH = 50;
const affected = (r: unknown) => Number((r as { affectedRows?: number }).affectedRows ?? 0);

interface MessageRow {
  message_key: string;
  thread_key: string;
  direction: ReplayDirection;
  from_name: string;
  sent_at: Date;
  subject: string;
  body: string;
}

const toHistory = (r: MessageRow): HistoryMail => ({
  key: r.message_key,
  threadKey: r.thread_key,
  direction: r.direction,
  subject: r.subject,
  body: r.body,
  sentAt: r.sent_at,
});

const RUN_VIEW = `SELECT r.*,
    (SELECT COUNT(*) FROM replay_results x WHERE x.run_id = r.id) AS done,
    (SELECT COUNT(*) FROM replay_results x WHERE x.run_id = r.id AND x.state = '${REPLAY_RESULT_STATE.error}') AS failed
  FROM replay_runs r`;

type RunRow = {
  id: string;
  mailbox_id: string;
  archive_name: string;
  status: ReplayRunView['status'];
  messages: number;
  customer_mails: number;
  pairs: number;
  done: number | bigint;
  failed: number | bigint;
  created_by: string;
  created_at: Date;
  finished_at: Date | null;
};

const toView = (r: RunRow): ReplayRunView => ({
  id: r.id,
  mailboxId: r.mailbox_id,
  archiveName: r.archive_name,
  status: r.status,
  messages: Number(r.messages),
  customerMails: Number(r.customer_mails),
  total: Number(r.pairs),
  done: Number(r.done),
  failed: Number(r.failed),
  createdBy: r.created_by,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

async function insertAll(conn: Queryable, what: string, head: string, rowMarks: string, rows: unknown[][], tail: string): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const batch = rows.slice(i, i + INSERT_BATCH);
    await query(conn, what, `${head} VALUES ${batch.map(() => rowMarks).join(', ')} ${tail}`, batch.flat());
  }
}

export function createMariaDbReplayStore(pool: Pool): ReplayStore {
  return {
    async createRun(run, messages, pairs) {
      await inTransaction(pool, 'recording a replay run', async (conn) => {
        await query(
          conn,
          'recording a replay run',
          `INSERT INTO replay_runs (id, mailbox_id, archive_name, team_addresses, status, messages, customer_mails, pairs, created_by)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            run.id,
            run.mailboxId,
            run.archiveName,
            JSON.stringify(run.teamAddresses),
            REPLAY_RUN_STATUS.running,
            run.messages,
            run.customerMails,
            run.pairs,
            run.createdBy,
          ],
        );
        await insertAll(
          conn,
          'storing replayed mail',
          'INSERT INTO replay_messages (run_id, message_key, thread_key, direction, correspondent, from_address, from_name, sent_at, subject, body)',
          '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          messages.map((m) => [
            run.id,
            m.key,
            m.threadKey,
            m.direction,
            m.correspondent,
            m.fromAddress,
            m.fromName.slice(0, 255),
            m.sentAt,
            m.subject,
            m.body,
          ]),
          'ON DUPLICATE KEY UPDATE body = VALUES(body)',
        );
        await insertAll(
          conn,
          'storing replay pairs',
          'INSERT INTO replay_pairs (run_id, pair_id, reply_key, correspondent, customer_at)',
          '(?, ?, ?, ?, ?)',
          pairs.map((p) => [run.id, p.pairId, p.replyKey, p.correspondent, p.customerAt]),
          'ON DUPLICATE KEY UPDATE reply_key = VALUES(reply_key)',
        );
      });
    },

    async pendingPairs(runId, limit) {
      const rows = await query<Array<{ pair_id: string }>>(
        pool,
        'finding pairs to replay',
        `SELECT p.pair_id FROM replay_pairs p
          WHERE p.run_id = ? AND NOT EXISTS (SELECT 1 FROM replay_results r WHERE r.run_id = p.run_id AND r.pair_id = p.pair_id)
          ORDER BY p.customer_at, p.pair_id LIMIT ?`,
        [runId, limit],
      );
      return rows.map((r) => r.pair_id);
    },

    async loadPair(runId, pairId): Promise<ReplayPairInput | null> {
      const pairs = await query<Array<{ reply_key: string; correspondent: string; customer_at: Date; mailbox_id: string }>>(
        pool,
        'reading a replay pair',
        `SELECT p.reply_key, p.correspondent, p.customer_at, r.mailbox_id FROM replay_pairs p JOIN replay_runs r ON r.id = p.run_id
          WHERE p.run_id = ? AND p.pair_id = ?`,
        [runId, pairId],
      );
      const pair = pairs[0];
      if (!pair) return null;
      const own = await query<MessageRow[]>(
        pool,
        'reading a replay pair’s mail',
        'SELECT * FROM replay_messages WHERE run_id = ? AND message_key IN (?, ?)',
        [runId, pairId, pair.reply_key],
      );
      const customer = own.find((m) => m.message_key === pairId);
      const reply = own.find((m) => m.message_key === pair.reply_key);
      if (!customer || !reply) return null;
      // The as-of cut-off is made here already: nothing the correspondent wrote from the mail's time on is read.
      const history = await query<MessageRow[]>(
        pool,
        'reading the correspondent’s earlier mail',
        `SELECT * FROM replay_messages WHERE run_id = ? AND correspondent = ? AND sent_at < ? AND message_key <> ?
          ORDER BY sent_at, message_key`,
        [runId, pair.correspondent, customer.sent_at, pairId],
      );
      return {
        runId,
        pairId,
        mailboxId: pair.mailbox_id,
        correspondent: pair.correspondent,
        customer: { ...toHistory(customer), fromName: customer.from_name },
        reply: toHistory(reply),
        history: history.map(toHistory),
      };
    },

    async earlierReplies(runId, before, limit) {
      if (limit <= 0) return [];
      const rows = await query<
        Array<{ subject: string; customer_body: string; from_name: string; from_address: string; reply_body: string; reply_at: Date }>
      >(
        pool,
        'reading a replay run’s earlier replies',
        `SELECT c.subject, c.body AS customer_body, c.from_name, c.from_address, t.body AS reply_body, t.sent_at AS reply_at
           FROM replay_pairs p
           JOIN replay_messages t ON t.run_id = p.run_id AND t.message_key = p.reply_key
           JOIN replay_messages c ON c.run_id = p.run_id AND c.message_key = p.pair_id
          WHERE p.run_id = ? AND t.sent_at < ?
          ORDER BY t.sent_at DESC, p.pair_id DESC
          LIMIT ?`,
        [runId, before, limit],
      );
      return rows.map((r) => ({
        customer: { subject: r.subject, body: r.customer_body, fromName: r.from_name, fromAddress: r.from_address },
        reply: { body: r.reply_body, sentAt: r.reply_at },
      }));
    },

    async hasResult(runId, pairId) {
      const rows = await query<unknown[]>(
        pool,
        'checking a replay result',
        'SELECT 1 FROM replay_results WHERE run_id = ? AND pair_id = ?',
        [runId, pairId],
      );
      return rows.length > 0;
    },

    async saveResult(r: ReplayResultRow) {
      await query(
        pool,
        'storing a replay result',
        `INSERT INTO replay_results (run_id, pair_id, correspondent, state, outcome, similarity, non_answer_similarity, edit_share,
           facts_total, facts_found, category, language, knowledge_gap, draft_body, drafter, model, context_ids, error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE state = VALUES(state), outcome = VALUES(outcome), similarity = VALUES(similarity),
           non_answer_similarity = VALUES(non_answer_similarity), edit_share = VALUES(edit_share), facts_total = VALUES(facts_total), facts_found = VALUES(facts_found),
           category = VALUES(category), language = VALUES(language), knowledge_gap = VALUES(knowledge_gap),
           draft_body = VALUES(draft_body), drafter = VALUES(drafter), model = VALUES(model), context_ids = VALUES(context_ids),
           error = VALUES(error)`,
        [
          r.runId,
          r.pairId,
          r.correspondent,
          r.state,
          r.outcome,
          r.similarity,
          r.nonAnswerSimilarity,
          r.editShare,
          r.factsTotal,
          r.factsFound,
          r.category.slice(0, 100),
          r.language.slice(0, 8),
          r.knowledgeGap ? 1 : 0,
          r.draftBody,
          r.drafter.slice(0, 64),
          r.model.slice(0, 191),
          JSON.stringify(r.contextIds),
          r.error,
        ],
      );
    },

    async finish(runId) {
      await query(
        pool,
        'finishing a replay run',
        `UPDATE replay_runs SET status = ?, finished_at = COALESCE(finished_at, CURRENT_TIMESTAMP(3)) WHERE id = ?`,
        [REPLAY_RUN_STATUS.finished, runId],
      );
    },

    async run(runId) {
      const rows = await query<RunRow[]>(pool, 'reading a replay run', `${RUN_VIEW} WHERE r.id = ?`, [runId]);
      return rows[0] ? toView(rows[0]) : null;
    },

    async runs(limit) {
      const rows = await query<RunRow[]>(pool, 'listing replay runs', `${RUN_VIEW} ORDER BY r.created_at DESC, r.id LIMIT ?`, [limit]);
      return rows.map(toView);
    },

    async reportRows(runId): Promise<ReplayReportRow[]> {
      const rows = await query<
        Array<{
          pair_id: string;
          mailbox_id: string;
          state: ReplayReportRow['state'];
          outcome: ReplayReportRow['outcome'];
          similarity: number | null;
          non_answer_similarity: number | null;
          edit_share: number | null;
          facts_total: number;
          facts_found: number;
          category: string;
          language: string;
          knowledge_gap: number;
          subject: string;
          body: string;
          sent_at: Date;
        }>
      >(
        pool,
        'reading replay results',
        `SELECT x.*, r.mailbox_id, m.subject, m.body, m.sent_at FROM replay_results x
           JOIN replay_runs r ON r.id = x.run_id
           JOIN replay_messages m ON m.run_id = x.run_id AND m.message_key = x.pair_id
          WHERE x.run_id = ? ORDER BY m.sent_at, x.pair_id`,
        [runId],
      );
      return rows.map((r) => ({
        pairId: r.pair_id,
        mailboxId: r.mailbox_id,
        state: r.state,
        outcome: r.outcome,
        similarity: r.similarity,
        nonAnswerSimilarity: r.non_answer_similarity,
        editShare: r.edit_share,
        factsTotal: Number(r.facts_total),
        factsFound: Number(r.facts_found),
        category: r.category,
        language: r.language,
        knowledgeGap: Number(r.knowledge_gap) === 1,
        subject: r.subject,
        body: r.body,
        at: r.sent_at,
      }));
    },

    async deleteRun(runId) {
      return inTransaction(pool, 'deleting a replay run', async (conn) => {
        const found = await query<unknown[]>(conn, 'finding a replay run', 'SELECT 1 FROM replay_runs WHERE id = ? FOR UPDATE', [runId]);
        if (found.length === 0) return null;
        const results = affected(await query(conn, 'deleting replay results', 'DELETE FROM replay_results WHERE run_id = ?', [runId]));
        const pairs = affected(await query(conn, 'deleting replay pairs', 'DELETE FROM replay_pairs WHERE run_id = ?', [runId]));
        const messages = affected(await query(conn, 'deleting replayed mail', 'DELETE FROM replay_messages WHERE run_id = ?', [runId]));
        await query(conn, 'deleting a replay run', 'DELETE FROM replay_runs WHERE id = ?', [runId]);
        return { messages, pairs, results };
      });
    },

    async knowledgeDates() {
      const rows = await query<Array<{ path: string; indexed_at: Date }>>(
        pool,
        'reading when knowledge files were indexed',
        'SELECT path, indexed_at FROM knowledge_files',
      );
      return new Map(rows.map((r) => [r.path, r.indexed_at]));
    },
  };
}

import { query, type Pool } from '../platform/pool.mariadb';
import type { ReplayOutcome } from '../replay';
import { STATUS } from '../email';
import type { ShadowEvidenceStore, ShadowReportRow } from './shadow-evidence.port';

/** A report reads at most this many rows, newest first: enough for any interval worth reading. */
const MAX_ROWS = 50_000;

export function createMariaDbShadowEvidence(pool: Pool): ShadowEvidenceStore {
  return {
    async save(r) {
      await query(
        pool,
        'storing shadow evidence',
        `INSERT INTO shadow_evidence (email_id, mailbox_id, mailbox_mode, draft_id, reply_message_id, category, language, outcome,
           similarity, non_answer_similarity, edit_share, facts_total, facts_found, knowledge_gap, replied_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE email_id = email_id`,
        [
          r.emailId,
          r.mailboxId,
          r.mailboxMode,
          r.draftId,
          r.replyMessageId.slice(0, 998),
          r.category.slice(0, 100),
          r.language.slice(0, 8),
          r.outcome,
          r.similarity,
          r.nonAnswerSimilarity,
          r.editShare,
          Math.min(r.factsTotal, 65_535),
          Math.min(r.factsFound, 65_535),
          r.knowledgeGap ? 1 : 0,
          r.repliedAt,
        ],
      );
    },

    async rows(filter) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.mailboxId) {
        where.push('s.mailbox_id = ?');
        params.push(filter.mailboxId);
      }
      if (filter.mode) {
        where.push('s.mailbox_mode = ?');
        params.push(filter.mode);
      }
      if (filter.since) {
        where.push('s.created_at >= ?');
        params.push(filter.since);
      }
      const rows = await query<Array<Record<string, unknown>>>(
        pool,
        'reading shadow evidence',
        `SELECT s.*, COALESCE(e.subject, '') AS subject, COALESCE(e.text_body, '') AS body FROM shadow_evidence s
           LEFT JOIN emails e ON e.id = s.email_id
          ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.created_at DESC LIMIT ${MAX_ROWS}`,
        params,
      );
      return rows.map((r): ShadowReportRow => ({
        emailId: r.email_id as string,
        mailboxId: r.mailbox_id as string,
        mailboxMode: r.mailbox_mode as string,
        draftId: r.draft_id as string,
        replyMessageId: r.reply_message_id as string,
        category: r.category as string,
        language: r.language as string,
        outcome: r.outcome as ReplayOutcome,
        similarity: (r.similarity as number | null) ?? null,
        nonAnswerSimilarity: (r.non_answer_similarity as number | null) ?? null,
        editShare: r.edit_share as number,
        factsTotal: Number(r.facts_total),
        factsFound: Number(r.facts_found),
        knowledgeGap: Number(r.knowledge_gap) === 1,
        repliedAt: r.replied_at as Date,
        subject: r.subject as string,
        body: r.body as string,
      }));
    },

    async standDownLatencies(filter) {
      const where = [`e.status = '${STATUS.answeredElsewhere}'`];
      const params: unknown[] = [];
      if (filter.mailboxId) {
        where.push('e.mailbox_id = ?');
        params.push(filter.mailboxId);
      }
      if (filter.since) {
        where.push('e.status_changed_at >= ?');
        params.push(filter.since);
      }
      const rows = await query<Array<{ s: number | string | null }>>(
        pool,
        'reading stand-down latencies',
        `SELECT TIMESTAMPDIFF(MICROSECOND, MIN(r.sent_at), e.status_changed_at) / 1000000 AS s FROM emails e
           JOIN outside_answers a ON a.email_id = e.id JOIN outside_replies r ON r.mailbox_id = a.mailbox_id AND r.message_key = a.message_key
          WHERE ${where.join(' AND ')} GROUP BY e.id, e.status_changed_at LIMIT ${MAX_ROWS}`,
        params,
      );
      return rows.map((r) => Number(r.s)).filter((s) => Number.isFinite(s));
    },
  };
}

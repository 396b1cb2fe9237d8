/** A case's handover summary in MariaDB: the mails it is made from, and the summary with its history row. */
import type { CaseSummaryMail } from '../drafting';
import { CASE_SUMMARY_EVENTS } from './cases.contract';
import type { CaseForSummary, CaseSummaryStore, NewCaseSummary } from './case-summaries.port';
import { query, type Pool } from '../platform/pool.mariadb';
import { insertCaseEvent } from './case-events.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';

/**
 * Mails a summary is made from: the first (how the case started) and the newest. A summary names
 * the gap; more would only be cut from it again.
 */
export const MAX_SUMMARY_MAILS = 60;
/** A mail's own words are at its start: a 5 MB body is not carried out of the database whole. */
const TEXT_CHARS = 100_000;

/** The mails of a case, within the case's account and mailbox: a wrongly linked stranger's mail stays out. */
const CASE_MAILS = `FROM emails e JOIN cases c ON c.id = e.case_id AND e.account = c.account AND e.mailbox_id = c.mailbox_id
  WHERE c.id = ?`;

type MailRow = {
  id: string;
  at: Date;
  from_name: string | null;
  from_address: string | null;
  subject: string | null;
  text: string | null;
};

export function createMariaDbCaseSummaryStore(pool: Pool): CaseSummaryStore {
  const counts = async (caseId: string) => {
    const cases = await query<Array<{ id: string; mailbox_id: string; summary_emails: number; n: number }>>(
      pool,
      'reading a case for its summary',
      `SELECT c.id, c.mailbox_id, c.summary_emails,
              (SELECT COUNT(*) FROM emails e WHERE e.case_id = c.id AND e.account = c.account AND e.mailbox_id = c.mailbox_id) AS n
       FROM cases c WHERE c.id = ?`,
      [caseId],
    );
    return cases[0];
  };
  return {
    async summaryCounts(caseId: string) {
      const c = await counts(caseId);
      return c ? { emailCount: Number(c.n), summaryEmails: Number(c.summary_emails) } : null;
    },

    async forSummary(caseId: string): Promise<CaseForSummary | null> {
      const c = await counts(caseId);
      if (!c) return null;
      const columns = `SELECT e.id, COALESCE(e.sent_date, e.created_at) AS at, e.from_name, e.from_address, e.subject,
                              SUBSTRING(e.text_body, 1, ${TEXT_CHARS}) AS text ${CASE_MAILS}`;
      const rows = await query<MailRow[]>(
        pool,
        'reading the mails of a case',
        `(${columns} ORDER BY at, e.id LIMIT 1) UNION (${columns} ORDER BY at DESC, e.id DESC LIMIT ${MAX_SUMMARY_MAILS - 1})`,
        [caseId, caseId],
      );
      const mails = rows
        .map((r): CaseSummaryMail => ({
          id: r.id,
          at: r.at,
          fromName: r.from_name,
          fromAddress: r.from_address,
          subject: r.subject,
          text: r.text ?? '',
        }))
        .sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
      return { id: c.id, mailboxId: c.mailbox_id, emailCount: Number(c.n), summaryEmails: Number(c.summary_emails), mails };
    },

    saveSummary(caseId: string, summary: NewCaseSummary): Promise<boolean> {
      return inTransaction(pool, 'saving a case summary', async (conn) => {
        // Only over a summary of fewer mails: a slower, older run never overwrites a newer one.
        const res = await query<{ affectedRows: number }>(
          conn,
          'saving a case summary',
          'UPDATE cases SET summary = ?, summary_kind = ?, summary_emails = ? WHERE id = ? AND summary_emails < ?',
          [summary.text, summary.kind, summary.emails, caseId, summary.emails],
        );
        if (res.affectedRows > 0) {
          await insertCaseEvent(
            conn,
            {
              caseId,
              emailId: null,
              eventType: CASE_SUMMARY_EVENTS.summarised,
              message: summary.event.message,
              details: summary.event.details,
              eventKey: summary.event.eventKey,
            },
            'recording a case summary in its history',
          );
        }
        return res.affectedRows > 0;
      });
    },
  };
}

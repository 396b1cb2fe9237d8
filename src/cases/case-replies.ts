/**
 * One reply for several mails of a case (src/cases/case-replies.port.ts). The rows in `case_replies` are
 * written first (the intent), then the lead is approved (its draft id binds the decision), then
 * each covered email is held for the reply; when the lead's reply was sent, `settle` tells each
 * covered email, which ends as sent. Every step is refused by the workflows' own rules when a
 * draft changed meanwhile, and a refused email simply stays open for a person.
 */
import { SEND_STATUS, type TemporalDecisions } from '../email';
import type { CaseReplies, CaseReplyRequest, CaseReplyResult, CaseReplySettler } from './case-replies.port';
import type { CaseSignals } from './case-signals.port';
import type { AuditLog } from '../platform/store.port';
import { query, type Pool } from '../platform/pool.mariadb';
import { CASE_AUDIT_EVENTS } from './cases.contract';

export function createCaseReplies(deps: {
  pool: Pool;
  decisions: Pick<TemporalDecisions, 'decide' | 'cover'>;
  signals: Pick<CaseSignals, 'caseReplySent'>;
  audit: AuditLog;
}): CaseReplies & CaseReplySettler {
  const { pool } = deps;
  const drop = (emailIds: string[]) =>
    emailIds.length === 0
      ? Promise.resolve()
      : query(
          pool,
          'withdrawing a case reply',
          `DELETE FROM case_replies WHERE settled_at IS NULL AND covered_email_id IN (${emailIds.map(() => '?').join(',')})`,
          emailIds,
        );

  const settle = async (leadEmailId: string): Promise<void> => {
    const sent = await query<Array<{ message_id: string; draft_id: string }>>(
      pool,
      'reading the sent case reply',
      `SELECT message_id, draft_id FROM send_attempts WHERE email_id = ? AND status = '${SEND_STATUS.sent}' ORDER BY updated_at DESC LIMIT 1`,
      [leadEmailId],
    );
    if (!sent[0]) return;
    const rows = await query<Array<{ covered_email_id: string }>>(
      pool,
      'reading the mails a case reply answers',
      'SELECT covered_email_id FROM case_replies WHERE lead_email_id = ? AND lead_draft_id = ? AND settled_at IS NULL',
      [leadEmailId, sent[0].draft_id],
    );
    for (const r of rows) {
      await deps.signals.caseReplySent(r.covered_email_id, { leadEmailId, messageId: sent[0].message_id, draftId: sent[0].draft_id });
      await query(pool, 'settling a case reply', 'UPDATE case_replies SET message_id = ?, settled_at = NOW(3) WHERE covered_email_id = ?', [
        sent[0].message_id,
        r.covered_email_id,
      ]);
    }
  };

  /** The other open mails the lead draft answers, as its drafter said. */
  const answeredBy = async (draftId: string): Promise<Set<string>> => {
    const rows = await query<Array<{ answers_email_ids: string | null }>>(
      pool,
      'reading the mails a draft answers',
      'SELECT answers_email_ids FROM drafts WHERE id = ?',
      [draftId],
    );
    return new Set(rows[0]?.answers_email_ids ? (JSON.parse(rows[0].answers_email_ids) as string[]) : []);
  };

  async function answer(req: CaseReplyRequest): Promise<CaseReplyResult> {
    const ids = [req.leadEmailId, ...req.covers.map((c) => c.emailId)];
    const members = await query<Array<{ id: string }>>(
      pool,
      'checking the mails of a case',
      `SELECT id FROM emails WHERE case_id = ? AND id IN (${ids.map(() => '?').join(',')})`,
      [req.caseId, ...ids],
    );
    const inCase = new Set(members.map((m) => m.id));
    const strangers = ids.filter((id) => !inCase.has(id));
    if (strangers.length > 0) return { accepted: false, covered: [], message: `not mails of case ${req.caseId}: ${strangers.join(', ')}` };
    const asked = req.covers.filter((c) => c.emailId !== req.leadEmailId);
    // A mail counts as answered only when the reply answers it: the lead draft says which it does;
    // a reply a person wrote (`body`) answers what that person says it does.
    const answers = req.body !== undefined ? null : await answeredBy(req.leadDraftId);
    const unanswered = answers ? asked.filter((c) => !answers.has(c.emailId)) : [];
    const covers = answers ? asked.filter((c) => answers.has(c.emailId)) : asked;
    for (const c of covers) {
      await query(
        pool,
        'recording a case reply',
        `INSERT INTO case_replies (covered_email_id, covered_draft_id, case_id, lead_email_id, lead_draft_id, approved_by) VALUES (?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE covered_draft_id = IF(settled_at IS NULL, VALUES(covered_draft_id), covered_draft_id),
           lead_email_id = IF(settled_at IS NULL, VALUES(lead_email_id), lead_email_id), lead_draft_id = IF(settled_at IS NULL, VALUES(lead_draft_id), lead_draft_id),
           approved_by = IF(settled_at IS NULL, VALUES(approved_by), approved_by)`,
        [c.emailId, c.draftId, req.caseId, req.leadEmailId, req.leadDraftId, req.by.slice(0, 191)],
      );
    }
    const approved = await deps.decisions.decide(req.leadEmailId, 'approve', {
      draftId: req.leadDraftId,
      by: req.by,
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    if (!approved.ok) {
      await drop(covers.map((c) => c.emailId));
      return { accepted: false, covered: [], message: approved.message };
    }
    const covered: CaseReplyResult['covered'] = unanswered.map((c) => ({
      emailId: c.emailId,
      held: false,
      message: `not answered by draft ${req.leadDraftId}: it waits for its own reply`,
    }));
    for (const c of covers) {
      const held = await deps.decisions.cover(c.emailId, { draftId: c.draftId, by: req.by, leadEmailId: req.leadEmailId });
      if (!held.ok) await drop([c.emailId]);
      covered.push({ emailId: c.emailId, held: held.ok, message: held.ok ? held.result.message : held.message });
    }
    await deps.audit.record({
      emailId: req.leadEmailId,
      correlationId: req.leadEmailId,
      eventType: CASE_AUDIT_EVENTS.replyApproved,
      actor: req.by,
      message: `${req.by} answered ${covered.filter((c) => c.held).length + 1} mail(s) of case ${req.caseId} in one reply`,
      details: { caseId: req.caseId, covered },
    });
    // The lead may have been sent before the covered emails were held: tell them now.
    await settle(req.leadEmailId);
    return { accepted: true, covered, message: approved.result.message };
  }

  return { answer, settle };
}

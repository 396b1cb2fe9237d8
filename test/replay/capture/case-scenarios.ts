/**
 * Cases on the real servers of the capture: a customer's second mail (another subject) joins the
 * case of the first, the first's draft goes stale and is drafted again, and one reply answers
 * both (the lead sends it, the covered email ends as sent by it). Recorded: the lead's history,
 * the covered email's and, once the case waits for its customer, the case clock's (1.4: the
 * deadlines of every case on one timer; 1.3 recorded the case's own workflow here).
 */
import { createCaseReplies } from '../../../src/cases/case-replies';
import { createMariaDbAuditLog } from '../../../src/platform/audit-log.mariadb';
import { createPool } from '../../../src/platform/pool.mariadb';
import { createTemporalCaseSignals } from '../../../src/cases/case-signals.temporal';
import { createTemporalDecisions } from '../../../src/email/decisions/decisions.temporal';
import { CASE_CLOCK } from '../../../src/cases/cases.contract';
import { WORKFLOW_TYPES } from '../../../src/platform/contract';
import { stateQuery } from '../../../src/email/email.workflow';
import { waitFor } from '../../support/wait';
import { currentDraft, deliver, finish, mailOf, waitSettled, type CaptureContext, type Handle, type Scenario } from './scenario-kit';

interface CaseRun {
  lead: Handle;
  covered: Handle;
  caseClock: Handle;
}

/** Two mails of one customer answered in one reply; `name` makes the customer its own. */
async function answeredTogether(ctx: CaptureContext, name: string): Promise<CaseRun> {
  const lead = await deliver(ctx, mailOf(name, 'Rechnung 2024-117 doppelt abgebucht'));
  const first = await currentDraft(lead);
  const covered = await deliver(
    ctx,
    mailOf(name, 'Neue Lieferadresse', { messageId: `<${name}-2@customer.example>`, body: 'Bitte liefern Sie an die Lindenstraße 4.' }),
  );
  const coveredDraft = await currentDraft(covered);
  // The second mail made the lead's draft stale: wait for the draft that answers both.
  await waitFor(`${lead.workflowId} drafted again`, async () => {
    const w = (await lead.query(stateQuery)).waitingFor;
    return w?.kind === 'approval' && w.draftId !== first;
  });
  const leadDraft = await currentDraft(lead);
  const pool = createPool(ctx.config.databaseUrl, 2);
  try {
    const rows = (await pool.query('SELECT case_id FROM emails WHERE id = ?', [lead.workflowId])) as Array<{ case_id: string }>;
    const caseId = rows[0]!.case_id;
    const replies = createCaseReplies({
      pool,
      decisions: createTemporalDecisions(ctx.client),
      signals: createTemporalCaseSignals(ctx.client, ctx.config.temporal.taskQueue),
      audit: createMariaDbAuditLog(pool),
    });
    const r = await replies.answer({
      caseId,
      leadEmailId: lead.workflowId,
      leadDraftId: leadDraft,
      covers: [{ emailId: covered.workflowId, draftId: coveredDraft }],
      by: 'ops',
    });
    if (!r.accepted || !r.covered[0]?.held) throw new Error(`case reply refused: ${JSON.stringify(r)}`);
    await finish(lead, 'sent');
    await finish(covered, 'sent');
    await waitFor(`${caseId} waits for its customer`, async () => {
      const c = (await pool.query('SELECT status FROM cases WHERE id = ?', [caseId])) as Array<{ status: string }>;
      return c[0]?.status === 'waiting_for_customer';
    });
    const caseClock = ctx.client.workflow.getHandle(CASE_CLOCK.workflowId);
    await waitSettled(caseClock);
    return { lead, covered, caseClock };
  } finally {
    await pool.end();
  }
}

export const CASE_SCENARIOS: Scenario[] = [
  {
    // Housekeeping of 1.3 beside the cases: one purge run as the retention schedule starts it.
    name: 'retention-purge',
    expect: 'purged',
    run: async (ctx) => {
      const handle = await ctx.client.workflow.start(WORKFLOW_TYPES.retentionPurge, {
        taskQueue: ctx.config.temporal.taskQueue,
        workflowId: 'retention-purge-capture',
        args: [{}],
      });
      await handle.result();
      return handle;
    },
  },
  { name: 'case-reply-lead', expect: 'sent', run: async (ctx) => (await answeredTogether(ctx, 'case-reply-lead')).lead },
  { name: 'case-reply-covered', expect: 'sent', run: async (ctx) => (await answeredTogether(ctx, 'case-reply-covered')).covered },
  {
    name: 'case-waits-for-customer',
    expect: 'running',
    run: async (ctx) => (await answeredTogether(ctx, 'case-waits-for-customer')).caseClock,
  },
];

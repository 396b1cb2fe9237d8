/**
 * Cases: a correspondent's open work. A mail joins its case in the index step (its thread's case,
 * else the correspondent's open case, else a new one); the case's other waiting drafts were
 * written without it and are drafted again with it; every status an email of the case reaches
 * moves the case's clock (src/cases/case-desk.ts). The case clock keeps every case's deadline on one
 * timer; a case workflow (`case-…`) runs only while its case has work over time of its own.
 */
import { CASE_SIGNALS, CASE_AUDIT_EVENTS } from './cases.contract';
import { normaliseAddress } from '../retrieval';
import { CASE_STATUS } from './case-status';
import { hasEnded, needsPerson, STATUS, type EmailStatus, type EmailRecord, EMAIL_AUDIT_EVENTS } from '../email';
import { errorMessage } from '../platform/errors';
import type { CaseSignalName } from './case-signals.port';
import type { CaseJoin } from './cases.port';
import type { DraftContextItem } from '../drafting';
import type { CaseDeps, CasesDeps } from './cases-deps';
import { correlationId } from '../platform/activity-context';
import { emailKey } from '../mailboxes';

/** How long an open case takes a correspondent's new mail after its last activity, unless CASE_WINDOW_DAYS says otherwise. */
export const DEFAULT_CASE_WINDOW_DAYS = 14;
/** The case's other open mails a draft sees, at most. */
const CASE_CONTEXT_MAILS = 5;
const CASE_CONTEXT_CHARS = 1_500;

type Deps = Pick<CasesDeps, 'messages' | 'audit' | 'signals' | 'mailboxes' | 'caseDesk'> & { case?: CaseDeps };

export type { CaseDeps };

/** Tells the case workflow; a Temporal that is away costs the case a timely reminder, never the email its step. */
async function tell(
  deps: Pick<Deps, 'audit' | 'case'>,
  caseId: string,
  signal: CaseSignalName,
  payload: Record<string, unknown>,
  emailId: string,
): Promise<void> {
  try {
    await deps.case?.caseSignals.notify(caseId, signal, payload);
  } catch (err) {
    await deps.audit.record({
      emailId,
      correlationId: correlationId(),
      eventType: CASE_AUDIT_EVENTS.signalFailed,
      errorClass: 'dependency',
      message: `case ${caseId} was not told (${signal}): ${errorMessage(err)}; its workflow plans again on its next event or timer`,
    });
  }
}

/**
 * Puts an email that will be answered into its case (the index step). The case's lead draft (the
 * oldest mail waiting for a person) was written without this mail: it is stale now and drafted
 * again with it (the thread's own follow-ups are already told by the index step: `alreadyTold`).
 */
export async function joinCase(deps: Deps, email: EmailRecord, alreadyTold: string[]): Promise<CaseJoin | null> {
  if (!deps.case || email.historyOnly) return null;
  const to = email.replyTo ?? email.from;
  if (!to?.address) return null;
  const joined = await deps.case.cases.join({
    emailId: email.id,
    threadId: email.threadId,
    account: emailKey(deps, email).account,
    mailboxId: email.mailboxId,
    correspondent: normaliseAddress(to.address),
    correspondentName: to.name ?? '',
    subject: email.subject,
    priority: email.priority,
    windowDays: deps.case.windowDays,
  });
  // Only the case's lead (its oldest mail waiting for a person) is drafted again, to answer all
  // open mails in one reply; the others keep their drafts (they see the case's mails when drafted,
  // and a case reply covers them). A burst of mail costs one redraft per mail, not one per pair.
  const lead = joined.waiting[0];
  for (const waiting of lead && !alreadyTold.includes(lead) ? [lead] : []) {
    // The new mail is in its case either way; a Temporal that is away costs the lead its fresh
    // draft (the reviewer still sees the case's mails), never this mail its intake.
    const told = await deps.signals.requestRedraft(waiting, 'new-mail-in-case').catch(async (err: unknown) => {
      await deps.audit.record({
        emailId: waiting,
        correlationId: waiting,
        eventType: CASE_AUDIT_EVENTS.signalFailed,
        errorClass: 'dependency',
        message: `a newer mail of the same case arrived (${email.id}), but no new draft could be requested: ${errorMessage(err)}`,
      });
      return false;
    });
    if (!told) continue;
    await deps.audit.record({
      emailId: waiting,
      correlationId: waiting,
      eventType: EMAIL_AUDIT_EVENTS.draftStale,
      message: `a newer mail of the same case arrived (${email.id}); a new draft that answers both was requested`,
      eventKey: `${waiting}:${EMAIL_AUDIT_EVENTS.draftStale}:${email.id}`,
    });
  }
  // The deadline counts from the mail's arrival: planned now, for the case clock to keep.
  await deps.caseDesk?.clockMoved(joined.caseId);
  return joined;
}

/** The case's other open mails, for the draft: one reply can answer what the customer asked in each. */
export async function caseContext(deps: Pick<Deps, 'case'>, email: Pick<EmailRecord, 'id' | 'caseId'>): Promise<DraftContextItem[]> {
  if (!deps.case) return [];
  // The record the draft read names its case (joined in the index step): no second read.
  const caseId = email.caseId !== undefined ? email.caseId : await deps.case.cases.caseOf(email.id);
  if (!caseId) return [];
  const mails = await deps.case.cases.openMails(caseId, email.id, CASE_CONTEXT_MAILS);
  return mails.map((m) => ({
    sourceId: m.emailId,
    kind: 'sender' as const,
    // The subject as it is: `openInCase` (and the prompt's open_in_case attribute) says what it is.
    title: m.subject.slice(0, 300),
    text: m.text.length > CASE_CONTEXT_CHARS ? `${m.text.slice(0, CASE_CONTEXT_CHARS)} …` : m.text,
    openInCase: true,
  }));
}

/**
 * After an email's status was recorded: its case's clock moves (a reply sent pauses it, a mail
 * settled may close it), its workflow hears of it, and a sent reply that answered other mails of
 * the case settles them.
 */
export async function caseAfterStatus(
  deps: Pick<CasesDeps, 'audit' | 'case' | 'caseReplies' | 'caseDesk'>,
  emailId: string,
  status: EmailStatus,
): Promise<void> {
  if (!deps.case) return;
  // Only a mail reaching a person or settling moves its case: the steps between cost no lookup.
  if (!needsPerson(status) && !hasEnded(status)) return;
  if (needsPerson(status)) {
    const { caseId, draft } = await deps.case.cases.caseAndCurrentDraft(emailId);
    if (!caseId) return;
    const ready = { emailId, draftId: draft?.id ?? null, category: draft?.category, language: draft?.language };
    // Routed and judged here; the case workflow starts only for an automatic send or a summary.
    const { needsWorkflow } = deps.caseDesk ? await deps.caseDesk.mailReady(caseId, ready) : { needsWorkflow: true };
    if (needsWorkflow) await tell(deps, caseId, CASE_SIGNALS.draftReady, ready, emailId);
    return;
  }
  const caseId = await deps.case.cases.caseOf(emailId);
  if (!caseId) return;
  const row = await deps.case.cases.refresh(caseId, `${emailId} is ${status}`);
  if (status === STATUS.sent) await deps.caseReplies?.settle(emailId);
  // A reply pauses the clock, a settled mail may leave another waiting: planned again. A case
  // workflow still waiting to send this mail automatically finds it decided (its Update is refused).
  if (row && row.status !== CASE_STATUS.closed) await deps.caseDesk?.clockMoved(caseId);
}

/** What the case workflow asks between its timers. */
export function createCaseActivities(deps: Pick<Deps, 'case'>) {
  return {
    /** The case as its workflow sees it: its status, and when a quiet case closes. */
    async caseState(input: {
      caseId: string;
    }): Promise<{ status: string; closeAt: string | null; owner: string | null; mailbox: string; priority: string }> {
      const row = deps.case ? await deps.case.cases.get(input.caseId) : null;
      if (!row || !deps.case) return { status: CASE_STATUS.closed, closeAt: null, owner: null, mailbox: '', priority: 'normal' };
      const quietFrom = row.lastReplyAt ?? row.openedAt;
      const closeAt =
        row.status === CASE_STATUS.waitingForCustomer
          ? new Date(new Date(quietFrom).getTime() + deps.case.windowDays * 86_400_000).toISOString()
          : null;
      return { status: row.status, closeAt, owner: row.owner, mailbox: row.mailboxId, priority: row.priority };
    },
    /** Closes a case waiting for its customer whose window passed; false when mail came meanwhile. */
    async closeQuietCase(input: { caseId: string }): Promise<{ closed: boolean }> {
      if (!deps.case) return { closed: false };
      return { closed: await deps.case.cases.closeIfQuiet(input.caseId, deps.case.windowDays) };
    },
  };
}

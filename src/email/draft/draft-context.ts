/**
 * The context a draft is written from: what retrieval finds for the mail, the case's other open
 * mails with what our knowledge says to each, and the files the customer attached — within the
 * budget (LLM_CONTEXT_CHARS). Retrieval failing means a draft without it, and an audit row.
 */
import { errorMessage } from '../../platform/errors';
import { type DraftContextItem, DEFAULT_CONTEXT_CHARS } from '../../drafting';
import type { EmailRecord } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { knowledgeForCaseMails } from './case-mail-knowledge';
import { attachmentContext } from '../../attachments';
import { emailKey } from '../../mailboxes';
import { RETRIEVAL_AUDIT_EVENTS } from '../../retrieval';

export const CONTEXT_LIMIT = 8;

/** Keeps the context items in their order of relevance until the budget (LLM_CONTEXT_CHARS) is spent. */
export function withinBudget(items: DraftContextItem[], budget = DEFAULT_CONTEXT_CHARS): DraftContextItem[] {
  const kept: DraftContextItem[] = [];
  let used = 0;
  for (const item of items) {
    if (used + item.text.length > budget) {
      if (budget - used > 200) kept.push({ ...item, text: `${item.text.slice(0, budget - used)} …` });
      break;
    }
    kept.push(item);
    used += item.text.length;
  }
  return kept;
}

export type DraftContextDeps = Pick<EmailDeps, 'audit' | 'index' | 'mailboxes' | 'emailCase' | 'attachments'> & {
  settings?: Pick<EmailDeps['settings'], 'contextChars'>;
};

export async function draftContext(
  deps: DraftContextDeps,
  email: EmailRecord,
  to: { address: string },
  at: { cid: string; version: number },
): Promise<DraftContextItem[]> {
  let context: DraftContextItem[] = [];
  const budget = deps.settings?.contextChars ?? DEFAULT_CONTEXT_CHARS;
  // Only the mail of this email's mailbox (or its team) can become context.
  const key = emailKey(deps, email);
  try {
    const answered = {
      emailId: email.id,
      threadId: email.threadId,
      account: key.account,
      mailbox: key.mailbox,
      direction: 'in' as const,
      fromAddress: to.address,
      subject: email.subject,
      text: email.text,
      date: email.date,
    };
    context = await deps.index.retrieve(answered, CONTEXT_LIMIT).then((items) => withinBudget(items, budget));
    // The case's other open mails come first: one reply can answer what the customer asked in
    // each, with what our knowledge says to each of them.
    const fromCase = deps.emailCase ? await deps.emailCase.context(email) : [];
    if (fromCase.length > 0) {
      const ids = new Set(fromCase.map((c) => c.sourceId));
      const forThem = await knowledgeForCaseMails(deps.index, answered, fromCase);
      const own = context.filter((c) => !ids.has(c.sourceId));
      // The answered mail's best passages first, then each other mail's, then the rest.
      context = withinBudget([...fromCase, ...own.slice(0, 3), ...forThem, ...own.slice(3)], budget);
    }
  } catch (err) {
    // Less context is better than no draft: when retrieval fails the draft is written without it,
    // and the audit log says so (docs/queue-model.md).
    await deps.audit.record({
      emailId: email.id,
      correlationId: at.cid,
      eventType: RETRIEVAL_AUDIT_EVENTS.degraded,
      errorClass: 'dependency',
      message: `drafting without retrieved context: ${errorMessage(err)}`,
      eventKey: `${at.cid}:${RETRIEVAL_AUDIT_EVENTS.degraded}:${at.version}`,
    });
  }
  // What the customer attached to this very mail comes first ("see the attached invoice");
  // unreadable stored text only means a draft without it.
  const attached = await attachmentContext(deps, email.id).catch(() => []);
  return attached.length > 0 ? withinBudget([...attached, ...context], budget) : context;
}

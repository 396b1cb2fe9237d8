import { errorMessage } from '../../platform/errors';
import type { DraftRecord, EmailRecord } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { emailKey } from '../../mailboxes';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

/**
 * Feedback: the approved text of a reply that left (a person's edit included) becomes context for
 * future drafts. A failure is audited and never fails the send step: the reply is out.
 */
export async function indexSentReply(
  deps: Pick<EmailDeps, 'audit' | 'index' | 'mailboxes'>,
  cid: string,
  email: EmailRecord,
  draft: DraftRecord,
  fromAddress: string,
): Promise<void> {
  try {
    const key = emailKey(deps, email);
    await deps.index.index({
      emailId: `${draft.id}:sent`,
      threadId: email.threadId,
      account: key.account,
      mailbox: key.mailbox,
      direction: 'out',
      fromAddress,
      // Whose reply it is: it counts as that correspondent's history, masked for anyone else.
      toAddresses: [draft.to.address],
      subject: draft.subject,
      text: draft.approvedBody ?? draft.body,
      date: new Date(),
    });
  } catch (err) {
    await deps.audit.record({
      emailId: email.id,
      correlationId: cid,
      eventType: EMAIL_AUDIT_EVENTS.replyNotIndexed,
      errorClass: 'dependency',
      message: `the sent reply could not be indexed for future drafts: ${errorMessage(err)}`,
      eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.replyNotIndexed}:${draft.id}`,
    });
  }
}

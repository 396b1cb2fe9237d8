import { createHash } from 'node:crypto';
import { wordEditDistance } from '../lib/edit-distance';
import { PermanentError, errorMessage } from '../lib/errors';
import type { ActivityDeps } from './deps';
import { correlationId, legacyTransition, transition, type StatusOwned } from './context';

export type Decision = { kind: 'approve'; by: string; body?: string } | { kind: 'reject'; by: string; reason: string };

const ADDRESS = /^[^\s@<>()",;:\\]+@[A-Za-z0-9.-]+\.?[A-Za-z0-9-]*$/;

/** The reply's Message-ID derives from the workflow and draft: the same reply always has the same id. */
export function replyMessageId(workflowId: string, draftId: string, fromAddress: string): string {
  const domain = fromAddress.split('@')[1] ?? 'localhost';
  return `<reply-${createHash('sha256').update(`${workflowId}\n${draftId}`).digest('hex').slice(0, 32)}@${domain}>`;
}

export function createSendActivities(
  deps: Pick<ActivityDeps, 'messages' | 'audit' | 'drafts' | 'sends' | 'sender' | 'mailbox' | 'settings' | 'index'>,
) {
  return {
    async recordDecision(input: { emailId: string; draftId: string; decision: Decision } & StatusOwned): Promise<void> {
      const cid = correlationId();
      const d = input.decision;
      if (d.kind === 'approve') {
        const draft = await deps.drafts.get(input.draftId);
        const editDistance = d.body !== undefined && draft ? wordEditDistance(draft.body, d.body) : 0;
        await deps.drafts.approve(input.draftId, d.by, d.body ?? null, editDistance);
        await deps.audit.record({
          emailId: input.emailId,
          correlationId: cid,
          eventType: 'draft_approved',
          actor: d.by,
          message: `draft approved by ${d.by}${d.body !== undefined ? ' with an edited body' : ''}`,
          details: { draftId: input.draftId, edited: d.body !== undefined, editDistance },
          eventKey: `${cid}:decision:${input.draftId}`,
        });
        await legacyTransition(input, deps, input.emailId, 'approved', `approved by ${d.by}`);
      } else {
        await deps.drafts.reject(input.draftId, d.by, d.reason);
        await deps.audit.record({
          emailId: input.emailId,
          correlationId: cid,
          eventType: 'draft_rejected',
          actor: d.by,
          message: `draft rejected by ${d.by}: ${d.reason}`,
          details: { draftId: input.draftId },
          eventKey: `${cid}:decision:${input.draftId}`,
        });
        await legacyTransition(input, deps, input.emailId, 'rejected', `rejected by ${d.by}: ${d.reason}`);
      }
    },

    /**
     * Sends an approved draft at most once. `force` is an operator's explicit go-ahead after an
     * interrupted attempt (the `resend` signal with `force: true`).
     */
    async sendReply(input: {
      emailId: string;
      draftId: string;
      force?: boolean;
    }): Promise<{ messageId: string; outcome: 'sent' | 'already_sent' }> {
      const cid = correlationId();
      const draft = await deps.drafts.get(input.draftId);
      if (!draft) throw new PermanentError(`draft ${input.draftId} does not exist`, 'DRAFT_GONE');
      if (draft.status !== 'approved' && draft.status !== 'sent') {
        throw new PermanentError(`draft ${input.draftId} is ${draft.status}, not approved`, 'DRAFT_NOT_APPROVED');
      }
      const email = await deps.messages.getEmail(input.emailId);
      if (!email) throw new PermanentError(`email ${input.emailId} is not stored`, 'MESSAGE_GONE');
      // Only the address the original came from, validated: model output never picks a recipient.
      if (!ADDRESS.test(draft.to.address)) {
        throw new PermanentError(`recipient "${draft.to.address}" is not a plain email address`, 'BAD_RECIPIENT');
      }
      const messageId = replyMessageId(cid, draft.id, deps.settings.from.address);
      const previous = await deps.sends.get(draft.id);
      if (previous?.status === 'sending' && !input.force) {
        // An earlier attempt died after handing the message to the SMTP server and before it
        // could record the answer: it may have been delivered. Never guess; ask a person.
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: 'send_in_doubt',
          errorClass: 'unclear',
          message: `attempt ${previous.attempts} to send ${messageId} was interrupted during the SMTP hand-over; not sent again automatically`,
          eventKey: `${cid}:send_in_doubt:${draft.id}:${previous.attempts}`,
        });
        throw new PermanentError(
          `an earlier attempt to send ${messageId} was interrupted during the SMTP hand-over and may have been delivered; ` +
            'check the SMTP server log for that Message-ID, then send again with the resend signal {"force":true} if it was not',
          'SEND_IN_DOUBT',
        );
      }
      const attempt = await deps.sends.begin(draft.id, email.id, messageId);
      if (attempt.status === 'sent') {
        await deps.drafts.markSent(draft.id);
        await transition(deps, email.id, 'sent', `already sent as ${messageId}`);
        return { messageId, outcome: 'already_sent' };
      }
      const references = [...email.references, ...(email.messageId ? [email.messageId] : [])];
      let result;
      await deps.sends.markSending(draft.id);
      try {
        result = await deps.sender.send({
          from: deps.settings.from,
          to: [{ name: draft.to.name, address: draft.to.address }],
          subject: draft.subject,
          text: draft.approvedBody ?? draft.body,
          messageId,
          inReplyTo: email.messageId ?? undefined,
          references: references.length > 0 ? references.slice(-20) : undefined,
        });
      } catch (err) {
        await deps.sends.failed(draft.id, errorMessage(err));
        throw err;
      }
      const expected = draft.to.address.toLowerCase();
      if (result.envelope.to.length !== 1 || result.envelope.to[0]?.toLowerCase() !== expected) {
        // Cannot be undone, but must never pass silently.
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: 'envelope_mismatch',
          errorClass: 'permanent',
          message: `envelope ${JSON.stringify(result.envelope.to)} differs from the approved recipient ${expected}`,
        });
      }
      await deps.sends.succeeded(draft.id, result.envelope, result.response);
      await deps.drafts.markSent(draft.id);
      await transition(deps, email.id, 'sent', `sent as ${messageId} to ${result.envelope.to.join(', ')}`, {
        messageId,
        envelope: result.envelope,
        attempts: attempt.attempts,
      });
      try {
        // Feedback: the approved text (a person's edit included) becomes context for future drafts.
        await deps.index.index({
          emailId: `${draft.id}:sent`,
          threadId: email.threadId,
          mailbox: email.mailbox ?? '',
          direction: 'out',
          fromAddress: deps.settings.from.address,
          subject: draft.subject,
          text: draft.approvedBody ?? draft.body,
          date: new Date(),
        });
      } catch (err) {
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: 'reply_not_indexed',
          errorClass: 'dependency',
          message: `the sent reply could not be indexed for future drafts: ${errorMessage(err)}`,
          eventKey: `${cid}:reply_not_indexed:${draft.id}`,
        });
      }
      try {
        await deps.mailbox.appendOnce(deps.settings.sentMailbox, result.raw, messageId);
        await deps.sends.markAppended(draft.id);
      } catch (err) {
        // The reply is out; a missing Sent copy must not make the step retry and send again.
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: 'sent_copy_failed',
          errorClass: 'dependency',
          message: `reply sent but not stored in ${deps.settings.sentMailbox}: ${errorMessage(err)}`,
          eventKey: `${cid}:sent_copy_failed:${draft.id}`,
        });
      }
      return { messageId, outcome: 'sent' };
    },
  };
}

import { SEND_OUTCOME, STATUS, type EmailStatus, type SendOutcome } from './email-status';
import { type Decision } from './email-input';

/** A status an email passes on the way to the one it ends at, with why. */
export interface StatusStep {
  status: EmailStatus;
  reason: string;
}

/*
 * Each transition has one definition for the workflow (which records it) and the activity that
 * reaches it (which records it for the workflow under the workflow's number).
 */

/** The transition after a draft: waiting for approval, or for a person when the drafter gave up. */
export function draftedTransition(
  version: number,
  draft: { needsHuman: boolean; drafter: string; model: string; heldReason?: string; shadow?: true },
): StatusStep & { via: StatusStep } {
  const needsHumanReason = draft.heldReason ?? 'the drafter produced no usable reply; a person must write it';
  const via = { status: STATUS.drafted, reason: `draft ${version} by ${draft.drafter}/${draft.model}` };
  // Shadow mode asks nobody, whatever the draft: it waits for the team's own reply to be measured against.
  if (draft.shadow)
    return { status: STATUS.shadowed, reason: `shadow mode: draft ${version} waits for the team's own reply; nothing is sent`, via };
  return {
    status: draft.needsHuman ? STATUS.manualReview : STATUS.awaitingApproval,
    reason: draft.needsHuman ? needsHumanReason : `waiting for approval of draft ${version}`,
    via: { status: STATUS.drafted, reason: `draft ${version} by ${draft.drafter}/${draft.model}` },
  };
}

/** The transition after a complete index step. */
export function indexedTransition(index: string | undefined): StatusStep {
  return { status: STATUS.indexed, reason: `indexed in ${index ?? 'the index'}` };
}

/** The transition a person's decision leads to. */
export function decidedTransition(decision: Decision): StatusStep {
  return decision.kind === 'approve'
    ? { status: STATUS.approved, reason: `approved by ${decision.by}${decision.body !== undefined ? ' with an edited body' : ''}` }
    : decision.spam
      ? { status: STATUS.rejected, reason: `marked as spam by ${decision.by}` }
      : { status: STATUS.rejected, reason: `rejected by ${decision.by}: ${decision.reason}` };
}

/** The transition after the send step: the reply left now, or had left in an earlier attempt. */
export function sentTransition(send: {
  outcome: SendOutcome;
  messageId: string;
  /** A send in doubt the mailbox check found in the Sent folder its provider fills. */
  foundInSent?: { folder: string; uid: number };
}): StatusStep {
  const found = send.foundInSent ? ` (in doubt, found in ${send.foundInSent.folder} as UID ${send.foundInSent.uid})` : '';
  return {
    status: STATUS.sent,
    reason: send.outcome === SEND_OUTCOME.alreadySent ? `already sent as ${send.messageId}` : `sent as ${send.messageId}${found}`,
  };
}

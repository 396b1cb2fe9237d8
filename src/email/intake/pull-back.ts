/**
 * A person pulls an email that triage set aside (`ignored`) back into the pipeline: the email
 * workflow runs again under the same id, skips triage and drafts a reply. One function for the
 * CLI (`email-rag answer`) and the review inbox's "not spam — draft it"; the caller hands in how
 * a run is started (src/email/intake/pull-back.temporal.ts), so this module stays free of the SDK.
 */
import { createMariaDbAuditLog } from '../../platform/audit-log.mariadb';
import { createMariaDbMessageStore } from '../message-store.mariadb';
import { STATUS } from '../email-status';
import { type EmailWorkflowInput } from '../email-input';
import type { Pool } from '../../platform/pool.mariadb';
import { emailDisplay } from '../email-display';
import { TRIAGE_AUDIT_EVENTS } from '../../triage';

/** Why a pull-back was refused; `code` 2 means the request itself was wrong (no such email, not ignored). */
export class PullBackRefused extends Error {
  constructor(
    message: string,
    readonly code: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'PullBackRefused';
  }
}

export interface PullBackDeps {
  pool: Pool;
  maxDrafts: number;
  /** LLM_TIMEOUT_MS: the draft step's timeout follows it (EmailWorkflowInput.llmTimeoutMs). */
  llmTimeoutMs?: number;
  /** Starts the email workflow again under `input.emailId`; throws PullBackRefused when a run is still open. */
  start(input: EmailWorkflowInput, display: ReturnType<typeof emailDisplay>): Promise<void>;
}

export async function pullBack(deps: PullBackDeps, emailId: string, by: string): Promise<string> {
  const email = await createMariaDbMessageStore(deps.pool).getEmail(emailId);
  if (!email) throw new PullBackRefused(`no email ${emailId} (ignored ones: SELECT id FROM emails WHERE status = '${STATUS.ignored}')`, 2);
  if (email.status !== STATUS.ignored) throw new PullBackRefused(`${emailId} is ${email.status}, not ignored: nothing to pull back`, 2);
  const input: EmailWorkflowInput = {
    emailId,
    // The mailbox it came to stays the one that answers (search attribute and display too).
    source: { kind: 'stored', mailboxId: email.mailboxId },
    priority: email.priority,
    answerRequestedBy: by,
    maxDrafts: deps.maxDrafts,
    ...(deps.llmTimeoutMs !== undefined ? { llmTimeoutMs: deps.llmTimeoutMs } : {}),
  };
  await deps.start(
    input,
    emailDisplay({
      subject: email.subject,
      fromName: email.from?.name,
      fromAddress: email.from?.address,
      priority: email.priority,
      mailboxId: email.mailboxId,
      mailbox: email.mailbox ?? 'file',
      messageId: email.messageId,
      threadId: email.threadId,
    }),
  );
  const why = email.statusReason ?? email.triageClass ?? 'triage';
  // Mail released from spam has its own event: how often the spam check was wrong is worth counting.
  const spam = email.triageClass === 'spam';
  await createMariaDbAuditLog(deps.pool).record({
    emailId,
    correlationId: emailId,
    eventType: spam ? TRIAGE_AUDIT_EVENTS.spamReleased : TRIAGE_AUDIT_EVENTS.overridden,
    actor: by,
    message: spam
      ? `${by} released an email held as spam and asked for a reply (${why})`
      : `${by} asked for a reply to an email triage had set aside (${why})`,
    details: { triageClass: email.triageClass ?? null, statusReason: email.statusReason ?? null },
  });
  return `${emailId} is back in the pipeline for a reply, requested by ${by} (was ignored: ${why})`;
}

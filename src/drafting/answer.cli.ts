import { WORKFLOW_TYPES } from '../platform/contract';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbMessageStore } from '../email/message-store.mariadb';
import type { Config } from '../config';
import { priorityKey, STATUS, type EmailWorkflowInput } from '../platform/domain';
import { errorMessage } from '../platform/errors';
import { emailDisplay } from '../platform/workflow-summary';
import { CliError, connectDatabase, connectTemporal } from '../platform/cli-context';
import { TRIAGE_AUDIT_EVENTS } from '../triage/triage.contract';
import { text, type CliCommand } from '../platform/cli-command';

/**
 * A person pulls an email that triage set aside (`ignored`) back into the pipeline: the email
 * workflow runs again under the same id, skips triage and drafts a reply.
 */
export async function answer(config: Config, emailId: string, by: string): Promise<string> {
  const pool = await connectDatabase(config);
  try {
    const email = await createMariaDbMessageStore(pool).getEmail(emailId);
    if (!email) throw new CliError(`no email ${emailId} (ignored ones: SELECT id FROM emails WHERE status = '${STATUS.ignored}')`, 2);
    if (email.status !== STATUS.ignored) throw new CliError(`${emailId} is ${email.status}, not ignored: nothing to pull back`, 2);
    const temporal = await connectTemporal(config);
    try {
      const priority = email.priority;
      const input: EmailWorkflowInput = {
        emailId,
        // The mailbox it came to stays the one that answers (search attribute and display too).
        source: { kind: 'stored', mailboxId: email.mailboxId },
        priority,
        answerRequestedBy: by,
        maxDrafts: config.maxDrafts,
        llmTimeoutMs: config.llm.timeoutMs,
      };
      const display = emailDisplay({
        subject: email.subject,
        fromName: email.from?.name,
        fromAddress: email.from?.address,
        priority,
        mailboxId: email.mailboxId,
        mailbox: email.mailbox ?? 'file',
        messageId: email.messageId,
        threadId: email.threadId,
      });
      await temporal.client.workflow.start(WORKFLOW_TYPES.email, {
        taskQueue: config.temporal.taskQueue,
        workflowId: emailId,
        args: [input],
        // The earlier run ended with `ignored`; polls keep REJECT_DUPLICATE, only a person re-runs it.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        priority: { priorityKey: priorityKey(priority) },
        staticSummary: display.summary,
        staticDetails: display.details,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new CliError(`${emailId} is still being processed; try again when it has ended`);
      if (err instanceof CliError) throw err;
      throw new CliError(`Temporal did not start ${emailId} again: ${errorMessage(err).split('\n')[0]}`);
    } finally {
      await temporal.close();
    }
    const why = email.statusReason ?? email.triageClass ?? 'triage';
    await createMariaDbAuditLog(pool).record({
      emailId,
      correlationId: emailId,
      eventType: TRIAGE_AUDIT_EVENTS.overridden,
      actor: by,
      message: `${by} asked for a reply to an email triage had set aside (${why})`,
      details: { triageClass: email.triageClass ?? null, statusReason: email.statusReason ?? null },
    });
    return `${emailId} is back in the pipeline for a reply, requested by ${by} (was ignored: ${why})`;
  } finally {
    await pool.end();
  }
}

export const answerCommand: CliCommand<string> = {
  name: 'answer',
  usage: 'answer <emailId> --by NAME              draft a reply to an email triage set aside (status ignored)',
  options: { by: { type: 'string' } },
  run(ctx, { positionals, values }) {
    const id = ctx.one(positionals, 'email id');
    const by = text(values, 'by');
    if (by === undefined || by.trim() === '') throw new CliError('answer needs --by NAME (who asked for the reply)', 2);
    return answer(ctx.config(), id, by.trim());
  },
};

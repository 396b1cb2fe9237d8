import { Context } from '@temporalio/activity';
import { STATUS, type EmailStatus, type SendOutcome } from './email-status';
import { type Decision } from './email-input';
import { errorMessage } from '../platform/errors';
import { decidedTransition, draftedTransition, indexedTransition, sentTransition, type StatusStep } from './status-transitions';
import type { AuditEntry } from '../platform/store.port';
import type { EmailDeps } from './email-deps';
import { correlationId } from '../platform/activity-context';
import { EMAIL_AUDIT_EVENTS } from './email.contract';
import { PLATFORM_AUDIT_EVENTS } from '../platform/contract';
import type { AuditEventType } from '../platform/audit-event-types';
import { type RecordedStatus, type StatusRecord, type StatusToRecord } from './email-activities';

type RecordStatus = ReturnType<typeof createStatusActivities>['recordStatus'];

/**
 * The intake, draft, decision and send activities record the status they reach (`indexed`,
 * `awaiting_approval` / `manual_review`, `approved` / `rejected`, `sent`) themselves, with the
 * workflow's numbering, instead of the workflow doing it in a local activity right after: one
 * activation and one marker less each. Only the outcome the workflow would record anyway is
 * written here; every other outcome (triage, degraded index, failures) goes through the
 * workflow's local activity.
 */
export function withRecordedStatus<
  I extends { emailId: string; answerRequestedBy?: string | null },
  R extends { parsed: { triage: unknown }; index?: string; indexError?: string },
  D extends { emailId: string; version: number },
  V extends { needsHuman: boolean; drafter: string; model: string },
  C extends { emailId: string; decision: Decision },
  S extends { emailId: string },
  T extends { messageId: string; outcome: SendOutcome },
>(
  recordStatus: RecordStatus,
  acts: {
    ingestEmail(input: I): Promise<R>;
    draftReply(input: D): Promise<V>;
    recordDecision(input: C): Promise<void>;
    sendReply(input: S): Promise<T>;
  },
) {
  const write = async (emailId: string, to: StatusToRecord, step: StatusStep, via?: StatusStep | StatusStep[]): Promise<RecordedStatus> => {
    const rec = await recordStatus({ emailId, status: step.status, reason: step.reason, seq: to.seq, ...(via ? { via } : {}) });
    return { ...rec, ...step };
  };
  return {
    async ingestEmail(input: I & { record?: StatusToRecord }): Promise<R & { recorded?: RecordedStatus }> {
      const result = await acts.ingestEmail(input);
      const clean = result.indexError === undefined && !(result.parsed.triage && !input.answerRequestedBy);
      if (!input.record || !clean) return result;
      return { ...result, recorded: await write(input.emailId, input.record, indexedTransition(result.index), input.record.via) };
    },
    async draftReply(input: D & { record?: StatusToRecord }): Promise<V & { recorded?: RecordedStatus }> {
      const view = await acts.draftReply(input);
      if (!input.record) return view;
      const t = draftedTransition(input.version, view);
      // A single via, as the workflow's own write of this transition keys its audit row.
      return { ...view, recorded: await write(input.emailId, input.record, t, t.via) };
    },
    async recordDecision(input: C & { record?: StatusToRecord }): Promise<{ recorded?: RecordedStatus }> {
      await acts.recordDecision(input);
      if (!input.record) return {};
      return { recorded: await write(input.emailId, input.record, decidedTransition(input.decision)) };
    },
    async sendReply(input: S & { record?: StatusToRecord }): Promise<T & { recorded?: RecordedStatus }> {
      const sent = await acts.sendReply(input);
      if (!input.record) return sent;
      try {
        return { ...sent, recorded: await write(input.emailId, input.record, sentTransition(sent)) };
      } catch (err) {
        // The reply is out: a failed status write must not fail the send step (its retries and
        // rounds are for SMTP). The workflow sees no `recorded` and writes the status itself.
        Context.current().log.warn('sent status not recorded by the send step; the workflow records it', {
          emailId: input.emailId,
          error: errorMessage(err),
        });
        return sent;
      }
    },
  };
}

/** `workflowId/runId`: audit keys of a reset run must not collide with the first run's. */
function runKey(): string {
  const info = Context.current().info;
  return `${correlationId()}/${info.workflowExecution?.runId ?? ''}`;
}

/**
 * The email workflow's own bookkeeping (run as local activities): it decides every status
 * transition and these record it, with an audit row each.
 */
export function createStatusActivities(deps: Pick<EmailDeps, 'messages' | 'audit' | 'emailCase'>) {
  return {
    async recordStatus(input: {
      emailId: string;
      status: EmailStatus;
      reason: string;
      /** The transition's number within the run: the audit row's idempotency key. */
      seq: number;
      event?: { eventType: AuditEventType; errorClass: string | null; message: string };
      /**
       * Statuses the email passes through on the way (e.g. `drafted` before `awaiting_approval`, or
       * `fetched` and `parsed` before `indexed`), recorded first, in order.
       */
      via?: { status: EmailStatus; reason: string } | Array<{ status: EmailStatus; reason: string }>;
    }): Promise<StatusRecord> {
      const cid = correlationId();
      const key = runKey();
      // Three round trips for most transitions: the status, what MariaDB knows, the audit rows.
      const { stored, send, maxDraftVersion } = await deps.messages.moveStatus(input.emailId, input.status, input.reason);
      // The re-index sync completes what the degraded index step left out: it looks for this mark.
      if (input.status === STATUS.partiallyIndexed) await deps.messages.setIndexState(input.emailId, 'partial');
      // Statuses passed on the way are audit rows only: the email's row holds where it is now.
      // A single via keeps the audit key runs already wrote; a list numbers its rows.
      const vias = Array.isArray(input.via)
        ? input.via.map((v, i) => ({ v, key: `:via:${i}` }))
        : input.via
          ? [{ v: input.via, key: ':via' }]
          : [];
      const rows: AuditEntry[] = vias.map(({ v, key: suffix }) => ({
        emailId: input.emailId,
        correlationId: cid,
        eventType: PLATFORM_AUDIT_EVENTS.statusChanged,
        message: `${v.status}: ${v.reason}`,
        details: { status: v.status },
        eventKey: `${key}:status:${input.seq}${suffix}`,
      }));
      if (input.event) {
        rows.push({
          emailId: input.emailId,
          correlationId: cid,
          eventType: input.event.eventType,
          errorClass: (input.event.errorClass as never) ?? null,
          message: input.event.message,
          eventKey: `${key}:event:${input.seq}`,
        });
      }
      rows.push({
        emailId: input.emailId,
        correlationId: cid,
        eventType: PLATFORM_AUDIT_EVENTS.statusChanged,
        message: `${input.status}: ${input.reason}`,
        details: { status: input.status, stored },
        eventKey: `${key}:status:${input.seq}`,
      });
      await deps.audit.recordAll(rows);
      // The email's case moves with it (its clock, its workflow, the mails a case reply answered).
      if (stored === input.status) await deps.emailCase?.afterStatus(input.emailId, input.status);
      return { stored, send, maxDraftVersion };
    },

    /** A decision signal the workflow refused (an Update's refusal is answered to the caller instead). */
    async recordRefusal(input: { emailId: string; decision: string; by: string; reason: string; at: string }): Promise<void> {
      await deps.audit.record({
        emailId: input.emailId,
        correlationId: correlationId(),
        eventType: EMAIL_AUDIT_EVENTS.decisionRefused,
        errorClass: null,
        actor: input.by,
        message: input.reason,
        details: { decision: input.decision, at: input.at },
        eventKey: `${runKey()}:refused:${input.decision}:${input.at}`,
      });
    },
  };
}

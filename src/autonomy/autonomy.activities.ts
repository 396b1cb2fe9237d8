/**
 * Earned autonomy (docs/cases.md "Earned autonomy"): the verdict on a draft ready for approval,
 * the automatic send at the end of its grace period, and a reviewer's stop. Off by default: no
 * policy for the mailbox, or the switch off, and every draft waits for a person.
 *
 * The automatic send is the email workflow's own `approve` Update, bound to the draft id, by
 * `autonomy:<policy>`: a person who acted first refuses it, and the pending row's compare-and-swap
 * plus the workflow's decision make a retried activity approve at most once.
 */
import { Context } from '@temporalio/activity';
import { AUTO_SEND_STATES, AUTONOMY_EVENTS } from './autonomy.contract';
import { DECISION_LIMITS } from '../email';
import { FAILURE_TYPES } from '../platform/contract';
import { autonomyActor } from '../drafting';
import { PermanentError, TransientError } from '../platform/errors';
import type { AutoApprover, AutonomyFigures, PendingAutoSend } from './autonomy.port';
import type { AuditLog } from '../platform/store.port';
import { assessDraft, type Assessment, type AssessmentDeps } from './autonomy-assessment';

export interface AutonomyDeps extends AssessmentDeps {
  approver: AutoApprover;
  audit: AuditLog;
  now?: () => Date;
}

export interface AutonomyVerdict {
  send: boolean;
  graceMs: number;
  policy: string | null;
  reasons: string[];
  figures: AutonomyFigures | null;
}

/** The workflow id inside an activity; the email id (its workflow id) when called by the inbox or CLI. */
function correlationOf(emailId: string): string {
  try {
    return Context.current().info.workflowExecution?.workflowId ?? emailId;
  } catch {
    return emailId;
  }
}

function checkedText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw new PermanentError(`${field} must be text of 1 to ${max} characters`, FAILURE_TYPES.badActor);
  return value.trim();
}

/**
 * A reviewer stops the automatic send of a draft (the inbox, the CLI, the activity): recorded
 * even before a verdict, so none is planned afterwards. `stopped` is false when the draft was sent
 * automatically already (or its approval is under way).
 */
export async function stopAutomaticSend(
  deps: Pick<AutonomyDeps, 'autonomy' | 'audit'>,
  input: { emailId: string; draftId: string; by: string },
): Promise<{ stopped: boolean }> {
  const emailId = checkedText(input.emailId, 'emailId', 400);
  const draftId = checkedText(input.draftId, 'draftId', 400);
  const by = checkedText(input.by, 'by', DECISION_LIMITS.byChars);
  const cid = correlationOf(emailId);
  const state = await deps.autonomy.stop(emailId, draftId, by);
  const stopped = state !== AUTO_SEND_STATES.sent;
  await deps.audit.record({
    emailId,
    correlationId: cid,
    eventType: AUTONOMY_EVENTS.stopped,
    actor: by,
    message: stopped
      ? `${by} stopped the automatic send of draft ${draftId}`
      : `${by} asked to stop draft ${draftId}, but it was sent automatically already`,
    details: { draftId, stopped },
    eventKey: `${cid}:${AUTONOMY_EVENTS.stopped}:${draftId}`,
  });
  return { stopped };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** The replay pairs that counted beside the live record, when the policy lets one count; else nothing. */
function replayWords(f: AutonomyFigures): string {
  if (!f.replay) return '';
  const runs = f.replay.runs.length > 0 ? f.replay.runs.join(', ') : '(no usable run)';
  return ` with replay ${runs} counted: ${f.replay.unchanged} of ${f.replay.reviewed} unchanged`;
}

export function createAutonomyActivities(deps: AutonomyDeps) {
  const now = deps.now ?? (() => new Date());

  const skipped = async (p: Pick<PendingAutoSend, 'emailId' | 'draftId' | 'policy'>, reason: string, cid: string) => {
    await deps.audit.record({
      emailId: p.emailId,
      correlationId: cid,
      eventType: AUTONOMY_EVENTS.skipped,
      message: `automatic send of draft ${p.draftId} skipped: ${reason}`,
      details: { draftId: p.draftId, policy: p.policy, reason },
      eventKey: `${cid}:${AUTONOMY_EVENTS.skipped}:${p.draftId}`,
    });
    return { sent: false, reason };
  };

  const sent = async (p: PendingAutoSend, figures: AutonomyFigures, cid: string) => {
    const by = autonomyActor(p.policy);
    await deps.audit.record({
      emailId: p.emailId,
      correlationId: cid,
      eventType: AUTONOMY_EVENTS.sent,
      actor: by,
      message: `draft ${p.draftId} approved automatically under policy ${p.policy}: ${figures.unchanged} of the last ${figures.reviewed} "${figures.category}" drafts approved unchanged${replayWords(figures)} (${pct(figures.share)}, lower bound ${pct(figures.lower)}, bar ${pct(figures.minShare)} from ${figures.minReviewed} reviewed)`,
      details: { draftId: p.draftId, policy: p.policy, figures },
      eventKey: `${cid}:${AUTONOMY_EVENTS.sent}:${p.draftId}`,
    });
    return { sent: true, reason: `approved by ${by}` };
  };

  /**
   * A listed category's judgement, kept as its standing: a record that cleared its bar at the last
   * verdict and does not now is demoted (audited, counted for the alert), and promoted back when
   * it clears it again. Every verdict judges the live record, so the demotion takes effect at once;
   * the row says when, and the autonomy page shows it. The change and its audit row are written in
   * one transaction (the store's): neither without the other. The row's key is the change's own
   * identity (mailbox, category, the standing's version), not the verdict's: a retried verdict
   * writes one row, and a category demoted again after a promotion gets its own.
   */
  async function noteStanding(a: Assessment, cid: string, emailId: string, draftId: string): Promise<void> {
    if (!a.listed || !a.figures || !a.entry || a.qualifies === undefined) return;
    const f = a.figures;
    const record = `${f.unchanged} of the last ${f.reviewed} approved unchanged${replayWords(f)}, lower bound ${pct(f.lower)} (bar ${pct(f.minShare)})`;
    await deps.autonomy.noteStanding(
      {
        mailboxId: a.mailboxId,
        category: f.category,
        qualified: a.qualifies,
        reviewed: f.reviewed,
        unchanged: f.unchanged,
        lower: f.lower,
      },
      ({ change, version }) => {
        const eventType = change === 'demoted' ? AUTONOMY_EVENTS.demoted : AUTONOMY_EVENTS.promoted;
        return {
          emailId,
          correlationId: cid,
          eventType,
          actor: a.policy ? autonomyActor(a.policy) : null,
          message:
            change === 'demoted'
              ? `category "${f.category}" of mailbox ${a.mailboxId} no longer qualifies for automatic sending: ${record}; its drafts wait for a person`
              : `category "${f.category}" of mailbox ${a.mailboxId} qualifies for automatic sending again: ${record}`,
          details: { mailboxId: a.mailboxId, category: f.category, policy: a.policy, figures: f, draftId, version },
          eventKey: `${eventType}:${a.mailboxId}:${f.category}:v${version}`,
        };
      },
    );
  }

  /** The row is claimed (`sent`): approve unless the workflow already holds our approval. */
  async function approveClaimed(p: PendingAutoSend, figures: AutonomyFigures, cid: string): Promise<{ sent: boolean; reason: string }> {
    const by = autonomyActor(p.policy);
    const ours = async () => {
      const d = await deps.approver.decision(p.emailId);
      return d?.by === by && d.draftId === p.draftId;
    };
    // A retried attempt whose Update went through before it failed: nothing to send again.
    if (await ours()) return sent(p, figures, cid);
    const outcome = await deps.approver.approve(p.emailId, { draftId: p.draftId, by });
    if (outcome.ok) return sent(p, figures, cid);
    if (!outcome.refused) throw new TransientError(`automatic approval of ${p.draftId} not delivered: ${outcome.message}`);
    if (await ours()) return sent(p, figures, cid);
    const reason = `the workflow refused the automatic approval: ${outcome.message}`;
    await deps.autonomy.settle(p.draftId, AUTO_SEND_STATES.skipped, reason, AUTO_SEND_STATES.sent);
    return skipped(p, reason, cid);
  }

  /** At the end of the grace period: everything is judged again, then the draft is approved once. */
  async function autoSend(input: { emailId: string; draftId: string }): Promise<{ sent: boolean; reason: string }> {
    const cid = correlationOf(input.emailId);
    const p = await deps.autonomy.pending(input.draftId);
    if (!p || p.emailId !== input.emailId) return skipped({ ...input, policy: '' }, 'no automatic send was planned for this draft', cid);
    if (p.state === AUTO_SEND_STATES.stopped || p.state === AUTO_SEND_STATES.skipped) return { sent: false, reason: p.reason ?? p.state };
    if (p.state === AUTO_SEND_STATES.sent) return approveClaimed(p, p.figures, cid);
    const a = await assessDraft(deps, input.emailId, input.draftId);
    await noteStanding(a, cid, input.emailId, input.draftId);
    if (!a.send || !a.figures) {
      const reason = a.reasons.join('; ');
      // A stop that landed meanwhile settled the row already: its reason stands.
      if (!(await deps.autonomy.settle(input.draftId, AUTO_SEND_STATES.skipped, reason))) return autoSend(input);
      return skipped(p, reason, cid);
    }
    // Claimed before the Update: a stop from now on finds the send under way and says so.
    if (!(await deps.autonomy.settle(input.draftId, AUTO_SEND_STATES.sent, `approving as ${autonomyActor(p.policy)}`)))
      return autoSend(input);
    return approveClaimed({ ...p, state: AUTO_SEND_STATES.sent }, a.figures, cid);
  }

  return {
    /** Whether the draft ready for approval may go without a person, after the grace period. */
    async autonomyVerdict(input: { emailId: string; draftId: string }): Promise<AutonomyVerdict> {
      const cid = correlationOf(input.emailId);
      const a = await assessDraft(deps, input.emailId, input.draftId);
      await noteStanding(a, cid, input.emailId, input.draftId);
      if (!a.send || !a.entry || !a.figures || !a.policy) {
        if (a.listed) {
          await deps.audit.record({
            emailId: input.emailId,
            correlationId: cid,
            eventType: AUTONOMY_EVENTS.withheld,
            message: `draft ${input.draftId} waits for a person: ${a.reasons.join('; ')}`,
            details: { draftId: input.draftId, policy: a.policy, reasons: a.reasons, figures: a.figures },
            eventKey: `${cid}:${AUTONOMY_EVENTS.withheld}:${input.draftId}`,
          });
        }
        return { send: false, graceMs: 0, policy: a.policy, reasons: a.reasons, figures: a.figures };
      }
      const at = now();
      // A retried verdict keeps the first row and its send time.
      const p = await deps.autonomy.savePending({
        draftId: input.draftId,
        emailId: input.emailId,
        mailboxId: a.mailboxId,
        category: a.figures.category,
        sendAfter: new Date(at.getTime() + a.entry.graceMinutes * 60_000),
        policy: a.policy,
        figures: a.figures,
      });
      if (p.state !== AUTO_SEND_STATES.pending) {
        const reasons = [`the automatic send is ${p.state}${p.reason ? `: ${p.reason}` : ''}`];
        return { send: false, graceMs: 0, policy: a.policy, reasons, figures: a.figures };
      }
      await deps.audit.record({
        emailId: input.emailId,
        correlationId: cid,
        eventType: AUTONOMY_EVENTS.pending,
        actor: autonomyActor(a.policy),
        message: `draft ${input.draftId} is sent automatically at ${p.sendAfter.toISOString()} unless a person stops it (policy ${a.policy})`,
        details: { draftId: input.draftId, policy: a.policy, figures: a.figures, sendAfter: p.sendAfter.toISOString() },
        eventKey: `${cid}:${AUTONOMY_EVENTS.pending}:${input.draftId}`,
      });
      return { send: true, graceMs: Math.max(0, p.sendAfter.getTime() - at.getTime()), policy: a.policy, reasons: [], figures: a.figures };
    },

    autoSend,

    /** A reviewer stops the automatic send of a draft; false when it was sent (or is being sent) already. */
    stopAutoSend: (input: { emailId: string; draftId: string; by: string }) => stopAutomaticSend(deps, input),
  };
}

/** The activities of a worker built without autonomy: every draft waits for a person. */
export function autonomyOff(): ReturnType<typeof createAutonomyActivities> {
  const reason = 'autonomy is not set up in this worker';
  return {
    autonomyVerdict: () => Promise.resolve({ send: false, graceMs: 0, policy: null, reasons: [reason], figures: null }),
    autoSend: () => Promise.resolve({ sent: false, reason }),
    stopAutoSend: () => Promise.resolve({ stopped: false }),
  };
}

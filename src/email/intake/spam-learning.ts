/**
 * A person's spam decision teaches the spam filter (TRIAGE_SPAMD's Bayes database): an email held
 * as spam that a person released ("not spam — draft it", `email-rag answer`) is learned as ham in
 * the parse step of its released run. The key is the run's workflow id and the step: a retried
 * attempt writes one audit row, and spamd itself does nothing for a message it already learned as
 * this class (its bayes_seen database), so a retry never learns twice. A filter that does not
 * answer leaves the decision standing: one audit row says the filter did not learn it.
 */
import { errorMessage } from '../../platform/errors';
import { STEPS } from '../../platform/contract';
import { correlationId } from '../../platform/activity-context';
import { TRIAGE_AUDIT_EVENTS, type SpamClass, type SpamLearner } from '../../triage';
import type { AuditLog } from '../../platform/store.port';

export interface SpamLearningDeps {
  audit: AuditLog;
  spamLearner?: SpamLearner;
}

/** Teaches the filter `cls` for one email a person decided on (`by`); never throws. */
export async function teachSpamFilter(deps: SpamLearningDeps, emailId: string, raw: Buffer, cls: SpamClass, by: string): Promise<void> {
  const learner = deps.spamLearner;
  if (!learner) return;
  const cid = correlationId();
  const key = `${cid}:${STEPS.parse}:${TRIAGE_AUDIT_EVENTS.spamLearned}:${cls}`;
  try {
    const outcome = await learner.learn(raw, cls);
    await deps.audit.record({
      emailId,
      correlationId: cid,
      eventType: TRIAGE_AUDIT_EVENTS.spamLearned,
      actor: by,
      message:
        outcome === 'learned'
          ? `${learner.describe} learned it as ${cls} (${by}'s decision)`
          : `${learner.describe} had learned it as ${cls} already (${by}'s decision)`,
      details: { class: cls, outcome, filter: learner.describe },
      eventKey: key,
    });
  } catch (err) {
    await deps.audit.record({
      emailId,
      correlationId: cid,
      eventType: TRIAGE_AUDIT_EVENTS.spamLearnFailed,
      errorClass: 'dependency',
      actor: by,
      message: `the spam filter did not learn ${by}'s decision (${cls}); the decision stands: ${errorMessage(err)}`,
      details: { class: cls, filter: learner.describe },
      eventKey: `${key}:failed`,
    });
  }
}

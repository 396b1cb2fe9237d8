/**
 * A person's spam decision teaches the spam filter (TRIAGE_SPAMD's Bayes database): an email held
 * as spam that a person released ("not spam — draft it", `email-rag answer`) is learned as ham in
 * the parse step of its released run; a waiting mail a person marked as spam (the review page's
 * "Spam", `email-rag reject --spam`) is learned as spam after the decision stands. The key is the
 * run's workflow id and the step: a retried attempt writes one audit row, and spamd itself does
 * nothing for a message it already learned as this class (its bayes_seen database), so a retry
 * never learns twice. A filter that does not answer leaves the decision standing: one audit row
 * says the filter did not learn it.
 */
import { errorMessage } from '../../platform/errors';
import { STEPS } from '../../platform/contract';
import { activityAttempt, correlationId } from '../../platform/activity-context';
import { SPAM_LEARN_ATTEMPTS } from '../../platform/activity-profiles.workflow';
import { TRIAGE_AUDIT_EVENTS, type SpamClass, type SpamLearner } from '../../triage';
import type { AuditLog } from '../../platform/store.port';
import type { MessageStore } from '../email-stores.port';

export interface SpamLearningDeps {
  audit: AuditLog;
  spamLearner?: SpamLearner;
}

export interface TeachOptions {
  /** The step whose decision it is (the audit rows' key); the parse step by default. */
  step?: string;
  /** Throws the filter's failure instead of auditing it: an attempt that is tried again. */
  rethrow?: boolean;
}

/** The audit rows' key of one learning: the run, the step whose decision it is, the class. */
const learnKey = (step: string, cls: SpamClass): string => `${correlationId()}:${step}:${TRIAGE_AUDIT_EVENTS.spamLearned}:${cls}`;

/** Teaches the filter `cls` for one email a person decided on (`by`); never throws unless `rethrow`. */
export async function teachSpamFilter(
  deps: SpamLearningDeps,
  emailId: string,
  raw: Buffer,
  cls: SpamClass,
  by: string,
  options: TeachOptions = {},
): Promise<void> {
  const learner = deps.spamLearner;
  if (!learner) return;
  const cid = correlationId();
  const key = learnKey(options.step ?? STEPS.parse, cls);
  let outcome: 'learned' | 'known';
  try {
    outcome = await learner.learn(raw, cls);
  } catch (err) {
    if (options.rethrow) throw err;
    await learnFailed(deps, { emailId, cls, by, key, reason: errorMessage(err), filter: learner.describe });
    return;
  }
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
}

async function learnFailed(
  deps: SpamLearningDeps,
  f: { emailId: string; cls: SpamClass; by: string; key: string; reason: string; filter: string },
): Promise<void> {
  await deps.audit.record({
    emailId: f.emailId,
    correlationId: correlationId(),
    eventType: TRIAGE_AUDIT_EVENTS.spamLearnFailed,
    errorClass: 'dependency',
    actor: f.by,
    message: `the spam filter did not learn ${f.by}'s decision (${f.cls}); the decision stands: ${f.reason}`,
    details: { class: f.cls, filter: f.filter },
    eventKey: `${f.key}:failed`,
  });
}

/**
 * The activity after a person marked a waiting mail as spam: the filter learns the stored message
 * as spam. A filter that does not answer is tried again (SPAM_LEARN_OPTIONS); the last attempt
 * audits the failure and returns, so the mail stays rejected either way.
 */
export function createSpamMarkActivities(deps: SpamLearningDeps & { messages: Pick<MessageStore, 'getRaw'> }) {
  return {
    async learnMarkedSpam(input: { emailId: string; by: string }): Promise<void> {
      const learner = deps.spamLearner;
      if (!learner) return;
      const raw = await deps.messages.getRaw(input.emailId);
      const key = learnKey(STEPS.decide, 'spam');
      if (!raw) {
        const reason = 'the message is no longer stored';
        return learnFailed(deps, { emailId: input.emailId, cls: 'spam', by: input.by, key, reason, filter: learner.describe });
      }
      const last = activityAttempt() >= SPAM_LEARN_ATTEMPTS;
      await teachSpamFilter(deps, input.emailId, raw, 'spam', input.by, { step: STEPS.decide, rethrow: !last });
    },
  };
}

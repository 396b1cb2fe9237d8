/**
 * Intake: fetch, parse and index as one activity (each step keeps its queue row, attempts and
 * retry plan), run in the workflow task that started the run.
 */
import type { EmailActivities } from '../email-activities';
import type { ParseSummary } from '../email-activities';
import { STATUS } from '../email-status';
import { folderOf, type EmailWorkflowInput } from '../email-input';
import { indexedTransition, type StatusStep } from '../status-transitions';
import type { EmailRun } from '../email-run.workflow';
import type { EmailWorkflowResult } from '../email-state.workflow';
import { failedStepOf } from '../../platform/failures.workflow';
import { STEPS } from '../../platform/contract';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

const fetchedReason = (input: EmailWorkflowInput) =>
  input.source.kind === 'imap' ? `UID ${input.source.uid} from ${folderOf(input.source)}` : 'stored message';
const parsedReason = (input: EmailWorkflowInput) =>
  input.answerRequestedBy ? `parsed; answered on request of ${input.answerRequestedBy}` : STATUS.parsed;

/**
 * From the raw message to an indexed email. Returns the run's result when it ends here (the
 * message could not be fetched or parsed, or triage says it needs no reply), null when a draft follows.
 */
export async function runIntake(run: EmailRun): Promise<EmailWorkflowResult | null> {
  const { input } = run;
  const fetched: StatusStep = { status: STATUS.fetched, reason: fetchedReason(input) };
  const via = [fetched, { status: STATUS.parsed, reason: parsedReason(input) }];
  let ingested: Awaited<ReturnType<EmailActivities['ingestEmail']>>;
  try {
    ingested = await run.intake().ingestEmail({ ...input, priority: run.priority, record: { ...run.reserve(), via } });
  } catch (err) {
    // The queue interceptor names the failed step; a parse failure comes after a stored message.
    if (failedStepOf(err) === STEPS.parse) return run.stop(STATUS.failed, EMAIL_AUDIT_EVENTS.parseFailed, err, [fetched]);
    return run.stop(STATUS.failed, EMAIL_AUDIT_EVENTS.fetchFailed, err);
  }
  const { triage } = ingested.parsed;
  if (triage) run.triaged(triage.class);
  if (triage && !input.answerRequestedBy) return ignoreTriaged(run, triage, [fetched]);
  if (ingested.indexError !== undefined) {
    // With the vector or graph store down the pipeline goes on with less context; the re-index sync completes it later.
    run.state.lastError = ingested.indexError;
    await run.record(
      STATUS.partiallyIndexed,
      ingested.indexError,
      { eventType: EMAIL_AUDIT_EVENTS.indexDegraded, errorClass: 'dependency', message: ingested.indexError },
      via,
    );
    return null;
  }
  await run.reached(ingested.recorded, indexedTransition(ingested.index), via);
  return null;
}

/** Bounces, auto-replies, list mail, no-reply senders, loops, spam: no draft; a person can pull it back. */
async function ignoreTriaged(run: EmailRun, triage: NonNullable<ParseSummary['triage']>, via: StatusStep[]): Promise<EmailWorkflowResult> {
  const why = `${triage.class}: ${triage.reason}`;
  await run.record(
    STATUS.ignored,
    why,
    { eventType: EMAIL_AUDIT_EVENTS.triaged, errorClass: null, message: `not answered (${why}); email-rag answer pulls it back` },
    via,
  );
  return { status: STATUS.ignored };
}

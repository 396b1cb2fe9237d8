import type { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ParseSummary } from '../activities/parse-activities';
import type { RecordedStatus, StatusToRecord } from '../activities/status-activities';
import type { EmailStatus, EmailWorkflowInput, Priority } from '../lib/domain';
import { indexedTransition, type StatusStep } from '../lib/status-transitions';
import type { ProfileName } from './activity-profiles';
import type { EmailWorkflowResult, EmailWorkflowState } from './email-state';
import { failedStepOf, failureText } from './failures';

type Event = { eventType: string; errorClass: string | null; message: string };
type Via = StatusStep;

/** What the intake (fetch, parse, index) needs from the email workflow that runs it. */
export interface IntakeControl {
  /** Patch `ingest-in-one-activity-v4`: runs started before it take the three steps as three activities. */
  inOneActivity: boolean;
  /** `status-with-step-v5`: a number for the activity to record the status it reaches (undefined before). */
  reserve(): StatusToRecord | undefined;
  /** The transition the activity reached: recorded by it (v5), else recorded by the workflow. */
  reached(done: RecordedStatus | undefined, t: StatusStep, via?: StatusStep[]): Promise<void>;
  input: EmailWorkflowInput;
  priority: Priority;
  state: EmailWorkflowState;
  act(profile: ProfileName): ReturnType<typeof proxyActivities<Activities>>;
  /** Where the combined intake activity runs: a local activity in the workflow task (v8) or the mail-io queue. */
  intake(): ReturnType<typeof proxyActivities<Activities>>;
  record(status: EmailStatus, reason: string, event?: Event, via?: Via | Via[]): Promise<void>;
  stop(status: EmailStatus, eventType: string, err: unknown, via?: Via[]): Promise<EmailWorkflowResult>;
  /** The triage class, for the TriageClass search attribute. */
  triaged(triageClass: string): void;
}

const statusOwner = 'workflow' as const;

/**
 * From the raw message to an indexed email. Returns the run's result when it ends here (the
 * message could not be fetched or parsed, or triage says it needs no reply), null when a draft follows.
 */
export async function runIntake(c: IntakeControl): Promise<EmailWorkflowResult | null> {
  return c.inOneActivity ? ingestInOne(c) : stepByStep(c);
}

const fetchedReason = (input: EmailWorkflowInput) =>
  input.source.kind === 'imap' ? `UID ${input.source.uid} from ${input.source.mailbox}` : 'stored message';
const parsedReason = (input: EmailWorkflowInput) =>
  input.answerRequestedBy ? `parsed; answered on request of ${input.answerRequestedBy}` : 'parsed';

/** Bounces, auto-replies, list mail, no-reply senders, loops, spam: no draft; a person can pull it back. */
async function ignoreTriaged(c: IntakeControl, triage: NonNullable<ParseSummary['triage']>, via?: Via[]): Promise<EmailWorkflowResult> {
  const why = `${triage.class}: ${triage.reason}`;
  await c.record(
    'ignored',
    why,
    { eventType: 'triaged', errorClass: null, message: `not answered (${why}); email-rag answer pulls it back` },
    via,
  );
  return { status: 'ignored' };
}

/** One activity, one status write: the statuses it passed are recorded on the way to the last one. */
async function ingestInOne(c: IntakeControl): Promise<EmailWorkflowResult | null> {
  const { input } = c;
  const fetched: Via = { status: 'fetched', reason: fetchedReason(input) };
  const via = [fetched, { status: 'parsed' as const, reason: parsedReason(input) }];
  const reserved = c.reserve();
  let ingested: Awaited<ReturnType<Activities['ingestEmail']>>;
  try {
    ingested = await c.intake().ingestEmail({
      ...input,
      priority: c.priority,
      statusOwner,
      ...(reserved ? { record: { ...reserved, via } } : {}),
    });
  } catch (err) {
    // The failed step is named by the queue interceptor; a parse failure comes after a stored message.
    if (failedStepOf(err) === 'parse') return c.stop('failed', 'parse_failed', err, [fetched]);
    return c.stop('failed', 'fetch_failed', err);
  }
  const { triage } = ingested.parsed;
  if (triage) c.triaged(triage.class);
  if (triage && !input.answerRequestedBy) return ignoreTriaged(c, triage, [fetched]);
  if (ingested.indexError === undefined) {
    await c.reached(ingested.recorded, indexedTransition(ingested.index), via);
  } else {
    // Seed 001: the pipeline goes on with less context; the re-index sync completes it later.
    c.state.lastError = ingested.indexError;
    await c.record(
      'partially_indexed',
      ingested.indexError,
      { eventType: 'index_degraded', errorClass: 'dependency', message: ingested.indexError },
      via,
    );
  }
  return null;
}

/** The three steps as three activities (runs started before `ingest-in-one-activity-v4`). */
async function stepByStep(c: IntakeControl): Promise<EmailWorkflowResult | null> {
  const { input, priority } = c;
  const emailId = input.emailId;
  try {
    await c.act('mailIo').fetchEmail({ ...input, statusOwner });
  } catch (err) {
    return c.stop('failed', 'fetch_failed', err);
  }
  await c.record('fetched', fetchedReason(input));
  let parsed: ParseSummary;
  try {
    parsed = await c.act('parse').parseEmail({ emailId, priority, statusOwner });
  } catch (err) {
    return c.stop('failed', 'parse_failed', err);
  }
  if (parsed.triage) c.triaged(parsed.triage.class);
  if (parsed.triage && !input.answerRequestedBy) return ignoreTriaged(c, parsed.triage);
  await c.record('parsed', parsedReason(input));
  try {
    const indexed = await c.act('index').indexEmail({ emailId, statusOwner });
    await c.record('indexed', `indexed in ${indexed.index}`);
  } catch (err) {
    // Seed 001: the pipeline goes on with less context; the re-index sync completes it later.
    c.state.lastError = failureText(err);
    await c.record('partially_indexed', c.state.lastError, {
      eventType: 'index_degraded',
      errorClass: 'dependency',
      message: c.state.lastError,
    });
  }
  return null;
}

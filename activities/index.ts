import { autonomyOff, createAutonomyActivities } from './autonomy-activities';
import { createCaseActivities } from './case-activities';
import { createCaseDeadlineActivities } from './case-deadline-activities';
import { createCaseSummaryActivities } from './case-summary-activities';
import { createCaseRoutingActivities } from './case-routing-activities';
import { createCleanupActivities } from './cleanup-activities';
import { createRetentionActivities } from './retention-activities';
import type { ActivityDeps } from './deps';
import { createDraftActivities } from './draft-activities';
import { createFetchActivities, createFetchStep } from './fetch-activities';
import { createIndexActivities, createIndexStep } from './index-activities';
import { createIngestActivities } from './ingest-activities';
import { createParseActivities, createParseStep } from './parse-activities';
import { createPollActivities } from './poll-activities';
import { createSendActivities } from './send-activities';
import { createStatusActivities, withRecordedStatus } from './status-activities';
import { createWatchActivities } from './watch-activities';

/** Every activity of the pipeline, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  const steps = { fetch: createFetchStep(deps), parse: createParseStep(deps), index: createIndexStep(deps) };
  const status = createStatusActivities(deps);
  const ingest = createIngestActivities(
    {
      fetchEmail: steps.fetch.fetchMessage,
      parseEmail: steps.parse.parseMessage,
      indexEmail: steps.index.indexMessage,
    },
    deps.settings.intakeSlots,
  );
  const draft = createDraftActivities(deps);
  const send = createSendActivities(deps);
  return {
    ...createPollActivities(deps),
    // The intake's steps, also as activities of their own: each has its queue row and plan, and tests and operators can run one alone.
    ...createFetchActivities(deps, steps.fetch),
    ...createParseActivities(deps, steps.parse),
    ...createIndexActivities(deps, steps.index),
    ...draft,
    ...send,
    // Intake, draft, decision and send record the status they reach, under the number the workflow reserved.
    ...withRecordedStatus(status.recordStatus, {
      ingestEmail: ingest.ingestEmail,
      draftReply: draft.draftReply,
      recordDecision: send.recordDecision,
      sendReply: send.sendReply,
    }),
    ...createCleanupActivities(deps),
    // The retention purge (RETENTION_*): purgeExpired, batched and resumable.
    ...createRetentionActivities(deps.retention),
    ...createWatchActivities(deps),
    ...createCaseActivities(deps),
    ...createCaseSummaryActivities(deps),
    ...createCaseRoutingActivities(deps.caseRouting),
    // Case deadlines: planCaseDeadline, remindCase, escalateCase (the case workflow's timers).
    ...createCaseDeadlineActivities(deps),
    ...(deps.autonomy
      ? createAutonomyActivities({
          ...deps.autonomy,
          autonomy: deps.autonomy.store,
          messages: deps.messages,
          drafts: deps.drafts,
          attachments: deps.attachments,
          audit: deps.audit,
        })
      : autonomyOff()),
    ...status,
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps, CaseDeadlinePorts, MailSettings } from './deps';

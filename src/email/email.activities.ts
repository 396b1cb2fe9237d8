/**
 * Every activity of the email's path, built from its dependencies: the poll that starts the
 * workflows, the intake steps (fetch, parse, index, and the three in one), the draft, the decision,
 * the send, and the status bookkeeping. The registry (activities/index.ts) adds the other features'.
 */
import { createDraftActivities } from './draft/draft.activities';
import { createFetchActivities, createFetchStep } from './intake/fetch.activities';
import { createIndexActivities, createIndexStep } from './intake/indexing.activities';
import { createIngestActivities } from './intake/ingest.activities';
import { createParseActivities, createParseStep } from './intake/parse.activities';
import { createPollActivities } from './intake/poll.activities';
import { createSendActivities } from './send/send.activities';
import { createSpamMarkActivities } from './intake/spam-learning';
import { createStatusActivities, withRecordedStatus } from './status.activities';
import { createAnsweredElsewhereActivities } from './answered-elsewhere/answered-elsewhere.activities';
import type { EmailDeps } from './email-deps';
import type { EmailActivities } from './email-activities';

export function createEmailActivities(deps: EmailDeps) {
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
  const activities = {
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
    ...status,
    ...createAnsweredElsewhereActivities(deps),
    ...createSpamMarkActivities(deps),
  };
  // What the workflows proxy (email-activities.ts) is what this builds: a change to one without the other does not compile.
  return activities satisfies EmailActivities;
}

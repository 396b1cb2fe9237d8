import { createCleanupActivities } from './cleanup-activities';
import type { ActivityDeps } from './deps';
import { createDraftActivities } from './draft-activities';
import { createFetchActivities, createFetchStep } from './fetch-activities';
import { createIndexActivities, createIndexStep } from './index-activities';
import { createIngestActivities } from './ingest-activities';
import { createOutcomeActivities } from './outcome-activities';
import { createParseActivities, createParseStep } from './parse-activities';
import { createPollActivities } from './poll-activities';
import { createSendActivities } from './send-activities';
import { createStatusActivities } from './status-activities';

/** Every activity of the pipeline, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  const steps = { fetch: createFetchStep(deps), parse: createParseStep(deps), index: createIndexStep(deps) };
  return {
    ...createPollActivities(deps),
    // Registered on their own for runs started before ingestEmail (and the re-index sync).
    ...createFetchActivities(deps, steps.fetch),
    ...createParseActivities(deps, steps.parse),
    ...createIndexActivities(deps, steps.index),
    ...createIngestActivities({
      fetchEmail: steps.fetch.fetchMessage,
      parseEmail: steps.parse.parseMessage,
      indexEmail: steps.index.indexMessage,
    }),
    ...createDraftActivities(deps),
    ...createSendActivities(deps),
    ...createOutcomeActivities(deps),
    ...createCleanupActivities(deps),
    ...createStatusActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps, MailSettings } from './deps';

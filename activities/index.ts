import { createCleanupActivities } from './cleanup-activities';
import type { ActivityDeps } from './deps';
import { createDraftActivities } from './draft-activities';
import { createFetchActivities } from './fetch-activities';
import { createIndexActivities } from './index-activities';
import { createIngestActivities } from './ingest-activities';
import { createOutcomeActivities } from './outcome-activities';
import { createParseActivities } from './parse-activities';
import { createPollActivities } from './poll-activities';
import { createSendActivities } from './send-activities';
import { createStatusActivities } from './status-activities';

/** Every activity of the pipeline, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  const fetch = createFetchActivities(deps);
  const parse = createParseActivities(deps);
  const index = createIndexActivities(deps);
  return {
    ...createPollActivities(deps),
    ...fetch,
    ...parse,
    ...index,
    ...createIngestActivities({ ...fetch, ...parse, ...index }),
    ...createDraftActivities(deps),
    ...createSendActivities(deps),
    ...createOutcomeActivities(deps),
    ...createCleanupActivities(deps),
    ...createStatusActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps, MailSettings } from './deps';

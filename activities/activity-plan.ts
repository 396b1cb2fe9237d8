/**
 * Which activities run as queue steps: each one's step name (its `queue_jobs` row) and its option
 * profile (src/platform/activity-profiles.workflow.ts). Here, beside the registry, because the keys
 * are checked against every feature's activities: renaming one without its entry is a type error.
 * The worker's queue interceptor and its metrics read it; no workflow does.
 */
import { STEPS, type StepName } from '../src/platform/contract';
import type { ProfileName } from '../src/platform/activity-profiles.workflow';
import type { Activities } from './index';

/** Names of the pipeline's activities (activities/index.ts); type-only, so nothing of them enters the workflow bundle. */
export type ActivityName = keyof Activities;

export interface ActivityPlanEntry {
  step: StepName;
  profile: ProfileName;
  /**
   * A combined activity: the activities (names in this plan) it runs as steps. It writes no row of
   * its own; each step keeps its row, attempts and retry plan. Its profile must retry at least as
   * long as its longest step plan, because the step that failed decides the next attempt.
   */
  steps?: readonly ActivityName[];
}

/**
 * Activity name → its queue step and profile; the interceptor reads this to write queue rows.
 * Keys are checked against the activities: renaming one without its entry here is a type error.
 */
const PLAN = {
  pollMailbox: { step: STEPS.poll, profile: 'poll' },
  /** Fetch, parse and index in one activity: each step keeps its own queue row, attempts and retry plan. */
  ingestEmail: { step: STEPS.ingest, profile: 'mailIo', steps: ['fetchEmail', 'parseEmail', 'indexEmail'] },
  fetchEmail: { step: STEPS.fetch, profile: 'mailIo' },
  parseEmail: { step: STEPS.parse, profile: 'parse' },
  indexEmail: { step: STEPS.index, profile: 'index' },
  draftReply: { step: STEPS.draft, profile: 'llm' },
  saveHumanDraft: { step: STEPS.draft, profile: 'bookkeeping' },
  recordDecision: { step: STEPS.decide, profile: 'bookkeeping' },
  sendReply: { step: STEPS.send, profile: 'send' },
  confirmSentByOperator: { step: STEPS.decide, profile: 'bookkeeping' },
  withdrawForOutsideAnswer: { step: STEPS.decide, profile: 'bookkeeping' },
  resetStuckJobs: { step: STEPS.cleanup, profile: 'poll' },
  reindexPartial: { step: STEPS.reindex, profile: 'index' },
  resendApproved: { step: STEPS.resend, profile: 'poll' },
} as const satisfies { readonly [A in ActivityName]?: ActivityPlanEntry };

/** An activity that runs as a queue step. */
export type PlannedActivity = keyof typeof PLAN;
export const ACTIVITY_PLAN: Readonly<Record<PlannedActivity, ActivityPlanEntry>> = PLAN;

/** The plan of an activity by its (runtime) type name; undefined for activities without a queue row. */
export function planOf(activityType: string): ActivityPlanEntry | undefined {
  return Object.hasOwn(ACTIVITY_PLAN, activityType) ? ACTIVITY_PLAN[activityType as PlannedActivity] : undefined;
}

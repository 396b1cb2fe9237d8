/**
 * Names the replay shares with operators, the CLI, the worker and other features: its workflow
 * type, id prefix, query and task queue suffix, the words of its rows and its audit event types.
 * Imports nothing at run time (the workflow bundle and every feature may import it).
 */
export const REPLAY_WORKFLOW = {
  type: 'ReplayWorkflow',
  /** The workflow id is `replay-<run id>`: one run, one workflow. */
  idPrefix: 'replay-',
  /** The query that answers where the run stands (done / failed / total). */
  progressQuery: 'replayProgress',
} as const;

/** The replay's activities run on `<TEMPORAL_TASK_QUEUE>-replay`: its own pool, its own slots. */
export const REPLAY_QUEUE_SUFFIX = '-replay';

/**
 * Temporal's priority key of every replay activity: 5, below the lowest live priority (low = 4),
 * so wherever a replay task shares a queue with live work it is dispatched last.
 */
export const REPLAY_PRIORITY_KEY = 5;

/** `replay_runs.status`. */
export const REPLAY_RUN_STATUS = {
  running: 'running',
  finished: 'finished',
} as const;
export type ReplayRunStatus = (typeof REPLAY_RUN_STATUS)[keyof typeof REPLAY_RUN_STATUS];

/** `replay_results.state`: a measured pair, or one whose drafting failed (after its retries). */
export const REPLAY_RESULT_STATE = {
  measured: 'measured',
  error: 'error',
} as const;
export type ReplayResultState = (typeof REPLAY_RESULT_STATE)[keyof typeof REPLAY_RESULT_STATE];

/**
 * The would-be outcome of a draft had a person reviewed it: the sent reply taken as the approved
 * text, with draft-quality's thresholds (src/drafting/draft-outcome.ts), or not answerable when
 * the drafter found no relevant context.
 */
export const REPLAY_OUTCOME = {
  unchanged: 'unchanged',
  light: 'light_edit',
  heavy: 'heavy_edit',
  notAnswerable: 'not_answerable',
} as const;
export type ReplayOutcome = (typeof REPLAY_OUTCOME)[keyof typeof REPLAY_OUTCOME];
export const REPLAY_OUTCOMES: readonly ReplayOutcome[] = Object.freeze(Object.values(REPLAY_OUTCOME));

/** `replay_messages.direction`: the customer's mail, or the team's. */
export const REPLAY_DIRECTION = { customer: 'customer', team: 'team' } as const;
export type ReplayDirection = (typeof REPLAY_DIRECTION)[keyof typeof REPLAY_DIRECTION];

/** Audit event types of the replay. */
export const REPLAY_AUDIT_EVENTS = {
  started: 'replay_started',
  deleted: 'replay_deleted',
  /** A person rated a draft against the team's reply (table `pair_ratings`). */
  pairRated: 'pair_rated',
} as const;

/**
 * A person's judgement of a draft beside the reply the team sent (table `pair_ratings`): only
 * rated pairs count toward a category's earned autonomy, `as_is` as an unchanged approval.
 */
export const PAIR_RATINGS = { asIs: 'as_is', lightEdit: 'light_edit', rewritten: 'rewritten' } as const;
export type PairRating = (typeof PAIR_RATINGS)[keyof typeof PAIR_RATINGS];

/**
 * The name `countReplay` (AUTONOMY_FILE) gives a mailbox's own shadow evidence: its pairs that a
 * person rated count like a named replay run's. No replay run id looks like it (they are dated).
 */
export const SHADOW_EVIDENCE_RUN = 'shadow';

/** Where a rated pair comes from: a replay run's result, or shadow evidence of live mail. */
export const PAIR_SOURCES = { replay: 'replay', shadow: 'shadow' } as const;
export type PairSource = (typeof PAIR_SOURCES)[keyof typeof PAIR_SOURCES];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    replay: (typeof REPLAY_AUDIT_EVENTS)[keyof typeof REPLAY_AUDIT_EVENTS];
  }
}

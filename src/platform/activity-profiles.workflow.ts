/**
 * Named activity option profiles: every timeout and retry rule of the pipeline in one place.
 * Pure data, imported by workflows (options) and by the worker's queue interceptor (schedule).
 *
 * A retryable failure is retried after 30 s, 120 s and 600 s (with jitter), i.e. at
 * most 4 attempts, then the job is `dead`. Temporal's exponential policy cannot express that
 * sequence, so the interceptor sets each `nextRetryDelay`; the policy below only bounds attempts
 * and retries an attempt lost with its worker (which no budget counts: LOST_ATTEMPTS_ALLOWED).
 */
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

export const DEFAULT_RETRY_DELAYS_MS = [30_000, 120_000, 600_000] as const;

export const HEARTBEAT_TIMEOUT = '20 seconds';
/** How often the interceptor heartbeats for a running activity; well inside HEARTBEAT_TIMEOUT. */
export const HEARTBEAT_EVERY_MS = 5_000;

export interface RetryPlan {
  /** 0 means unlimited: IMAP and MariaDB outages are waited out, never given up on. */
  maximumAttempts: number;
  delaysMs: readonly number[];
}

export interface ActivityProfile {
  options: ActivityOptions;
  plan: RetryPlan;
}

/**
 * Attempts of one step that may end with their worker (a crash, a kill, a rolling deploy) on top
 * of the step's own budget. Such an attempt reports nothing; the queue interceptor finds it at
 * the next attempt's start and does not count it against the budget (src/platform/lost-attempts.ts),
 * so two worker deaths while drafting never hand a mail to a person as if the model had failed.
 * The bound keeps a message that kills every worker that touches it from looping for ever: after
 * this many losses in a row the step ends with a timeout, which the workflow reports as such.
 */
export const LOST_ATTEMPTS_ALLOWED = 5;

function profile(startToCloseTimeout: ActivityOptions['startToCloseTimeout'], plan: RetryPlan): ActivityProfile {
  return {
    plan,
    options: {
      startToCloseTimeout,
      // The queue interceptor heartbeats every few seconds: a crashed worker's attempt is retried
      // after this, not after the whole start-to-close timeout.
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry: {
        // The SDK spells "unlimited" as an absent maximumAttempts.
        ...(plan.maximumAttempts > 0 ? { maximumAttempts: plan.maximumAttempts + LOST_ATTEMPTS_ALLOWED } : {}),
        // The interceptor sets nextRetryDelay on every failure it sees; what reaches this policy
        // is an attempt that ended with its worker (heartbeat or start-to-close timeout), run
        // again at once on another worker: the heartbeat timeout has already been waited.
        initialInterval: '1 second',
        backoffCoefficient: 2,
        maximumInterval: `${Math.min(30_000, plan.delaysMs[plan.delaysMs.length - 1] ?? 30_000)} ms`,
      },
    },
  };
}

export const PROFILES = {
  /** IMAP: unlimited retries with the backoff schedule, capped at 10 minutes. */
  mailIo: profile('2 minutes', { maximumAttempts: 0, delaysMs: DEFAULT_RETRY_DELAYS_MS }),
  /** One poll pass: a few quick tries; the schedule's next run is the real retry. */
  poll: profile('2 minutes', { maximumAttempts: 3, delaysMs: [5_000, 15_000] }),
  /** CPU-bound local work: the default schedule. */
  parse: profile('1 minute', { maximumAttempts: 4, delaysMs: DEFAULT_RETRY_DELAYS_MS }),
  /** Qdrant/ArangoDB/full-text: 3 attempts, then the pipeline goes on as partially_indexed. */
  index: profile('2 minutes', { maximumAttempts: 3, delaysMs: DEFAULT_RETRY_DELAYS_MS }),
  /**
   * LLM: one retry, then a person drafts (manual_review). The start-to-close timeout here is the
   * floor; a run that knows LLM_TIMEOUT_MS (its input) gets llmStepTimeout's.
   */
  llm: profile('3 minutes', { maximumAttempts: 2, delaysMs: DEFAULT_RETRY_DELAYS_MS }),
  /** SMTP: three attempts; the draft stays approved and the resend schedule picks it up. */
  send: profile('2 minutes', { maximumAttempts: 3, delaysMs: DEFAULT_RETRY_DELAYS_MS }),
  /** MariaDB-only bookkeeping: a database outage is waited out, the write is never dropped. */
  bookkeeping: profile('30 seconds', { maximumAttempts: 0, delaysMs: [1_000, 5_000, 30_000, 60_000] }),
  /**
   * An IDLE watcher's session (src/mailboxes/mailbox-watch.workflow.ts): at most WATCH_SESSION_MAX
   * long, heartbeating, so a dead worker's watch moves to another after HEARTBEAT_TIMEOUT; a lost
   * connection is retried after 1 s, 4 s, 16 s, then every 30 s, without end. No queue row.
   */
  watch: profile('35 minutes', { maximumAttempts: 0, delaysMs: [1_000, 30_000] }),
} as const satisfies Record<string, ActivityProfile>;

export type ProfileName = keyof typeof PROFILES;

/**
 * Teaching the spam filter a person's spam mark, on the parse pool (where spamd is asked): not a
 * queue step, nothing waits on it. An attempt that cannot reach the filter is tried again; the
 * last one audits the failure and returns (src/email/intake/spam-learning.ts): the decision stands.
 */
export const SPAM_LEARN_ATTEMPTS = 3;
export const SPAM_LEARN_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: SPAM_LEARN_ATTEMPTS, initialInterval: '30 seconds', backoffCoefficient: 4 },
};

/** The draft step's time beside its model calls: the mail, retrieval (one query embedding), the guard, the database. */
export const LLM_STEP_MARGIN_MS = 60_000;

/**
 * The draft step's start-to-close timeout for a model given `llmTimeoutMs` per call: two calls
 * (the draft and its one repair round) and the margin, never below the profile's 3 minutes. A
 * fixed timeout below two model calls would end a slow local model's every attempt as if the
 * worker had died, never as the model's own timeout.
 */
export function llmStepTimeout(llmTimeoutMs: number | undefined): ActivityOptions['startToCloseTimeout'] {
  if (llmTimeoutMs === undefined || !(llmTimeoutMs > 0)) return PROFILES.llm.options.startToCloseTimeout;
  return `${Math.max(3 * 60_000, 2 * llmTimeoutMs + LLM_STEP_MARGIN_MS)} ms`;
}

/**
 * Cost classes: each has its own task queue and worker pool with its own concurrency
 * limit, so a slow LLM never blocks mail I/O or parsing. Bookkeeping stays on the workflow's queue.
 */
export const COST_CLASS: Record<ProfileName, 'mail-io' | 'parse' | 'index' | 'llm' | null> = {
  mailIo: 'mail-io',
  poll: 'mail-io',
  send: 'mail-io',
  parse: 'parse',
  index: 'index',
  llm: 'llm',
  bookkeeping: null,
  // Long-held connections on the workflow queue, not in the mail I/O pool's limited slots.
  watch: null,
};
export const COST_CLASSES = ['mail-io', 'parse', 'index', 'llm'] as const;
export type CostClass = (typeof COST_CLASSES)[number];

export function taskQueueFor(baseQueue: string, profile: ProfileName): string {
  const costClass = COST_CLASS[profile];
  return costClass ? `${baseQueue}-${costClass}` : baseQueue;
}

/** Aging: every 10 minutes of waiting raises the priority of the next step by one level. */
export const AGING_STEP_MS = 10 * 60 * 1000;

/**
 * Local activities: the workflow's own bookkeeping (status, refusals, a person's decision), run in the workflow worker without a task-queue round trip. A
 * MariaDB outage is waited out; the write is never dropped.
 */
export const LOCAL_PROFILES = {
  status: {
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  },
  /**
   * The intake in the run's first workflow task: the mailIo
   * profile's timeout and retries (the interceptor's 30 s / 120 s / 600 s). A wait longer than a
   * few seconds is a durable timer, not a workflow task held open: an IMAP outage of hours costs
   * a timer and a marker per attempt, and a worker that dies meanwhile loses nothing.
   */
  intake: {
    startToCloseTimeout: PROFILES.mailIo.options.startToCloseTimeout,
    retry: PROFILES.mailIo.options.retry,
    localRetryThreshold: '5 seconds',
  },
} as const satisfies Record<string, LocalActivityOptions>;

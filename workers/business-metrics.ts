import type { MetricMeter, MetricTags } from '@temporalio/common';
import { createMariaDbOperatingFigures } from '../src/operations/index.adapters';
import { URGENT_PRIORITIES, type OperatingFigures } from '../src/operations';
import { createMariaDbSignInRefusals } from '../src/review-inbox/index.adapters';
import { LOGIN_REFUSAL_REASONS } from '../src/review-inbox';
import { createPool } from '../src/platform/pool.mariadb';
import { createMariaDbCaseFigures } from '../src/cases/index.adapters';
import { type CaseFigures } from '../src/cases';
import { caseMetrics } from './case-metrics';
import { idleMetrics } from './idle-metrics';
import { labelledGauge } from './labelled-gauge';
import { createMariaDbWatcherHealth } from '../src/mailboxes/index.adapters';
import { type WatcherRow } from '../src/mailboxes';
import { OFFLINE_PROMPT_VERSION, DRAFT_OUTCOMES, PROMPT_VERSION } from '../src/drafting';
import type { Config } from '../src/config';
import { EMAIL_STATUSES, NEEDS_PERSON_STATUSES, needsPerson, SEND_STATUSES, UNFINISHED_STATUSES } from '../src/email';
import { PRIORITIES, TRIAGE_ALERT_EVENTS } from '../src/triage';
import { errorMessage, type ErrorClass } from '../src/platform/errors';
import { createLogger } from '../src/platform/logger';
import { ACTIVITY_PLAN } from '../activities/activity-plan';

const logger = createLogger('metrics');

const ERROR_CLASSES: readonly ErrorClass[] = ['transient', 'permanent', 'dependency', 'unclear'];
/** Steps that write queue rows (a combined activity writes none of its own). */
const STEPS: readonly string[] = [...new Set(Object.values(ACTIVITY_PLAN).flatMap((p) => (p.steps ? [] : [p.step])))];
const STATUS_WORDS = new Set<string>(EMAIL_STATUSES);
/** Rows written in the last seconds may still be in flight: they are read on the next round. */
const SETTLE_SECONDS = 2;

/**
 * The business metrics the worker exports beside the SDK's own (names are the contract of
 * deploy/prometheus/alerts.yml and deploy/grafana/email-rag.json). Values describe the shared
 * database, so every worker reports the same: aggregate with `max without (instance)`.
 */
export const BUSINESS_METRICS = {
  backlog: 'email_rag_backlog_emails',
  oldestUnfinished: 'email_rag_oldest_unfinished_age_seconds',
  oldestUrgent: 'email_rag_oldest_urgent_age_seconds',
  waiting: 'email_rag_waiting_for_person_emails',
  oldestWaiting: 'email_rag_oldest_waiting_for_person_seconds',
  sends: 'email_rag_send_attempts',
  deadLetters: 'email_rag_dead_letters',
  lastSample: 'email_rag_metrics_last_sample_timestamp_seconds',
  mailboxPollAge: 'email_rag_mailbox_seconds_since_poll_success',
  mailboxPollFailures: 'email_rag_mailbox_poll_failures_in_a_row',
  mailboxAuthBlocked: 'email_rag_mailbox_auth_blocked',
  received: 'email_rag_emails_received_total',
  statusChanges: 'email_rag_status_changes_total',
  retries: 'email_rag_job_retries_total',
  dead: 'email_rag_jobs_dead_total',
  sampleFailures: 'email_rag_metrics_sample_failures_total',
  timeToDraft: 'email_rag_time_to_draft_seconds',
  stepRuntime: 'email_rag_step_runtime_seconds',
  draftOutcomes: 'email_rag_draft_outcomes_total',
  idleWatchers: 'email_rag_idle_watchers',
  idleReconnects: 'email_rag_idle_reconnects_total',
  triageAlerts: 'email_rag_triage_alerts_total',
  casesOverdue: 'email_rag_cases_overdue',
  caseEscalations: 'email_rag_case_escalations_total',
  loginRefusals: 'email_rag_inbox_login_refusals_total',
  autonomyDemotions: 'email_rag_autonomy_demotions_total',
} as const;

/**
 * Drafters the code knows; any other name in the table is exported as `other`. Category, model
 * and language are not labels: the model writes them freely, so they could make series without
 * bound (`email-rag quality` and the operations page group by them).
 */
const DRAFTERS = new Set(['openai', 'offline', 'human']);
// `+` joins a prompt version and what it carried (`draft-v4+examples`).
const PROMPT_VERSION_LABEL = /^[\w.+-]{1,40}$/;

/** Histogram buckets in seconds (the SDK's default buckets are milliseconds). */
export const BUSINESS_HISTOGRAM_BUCKETS: Record<string, number[]> = {
  [BUSINESS_METRICS.timeToDraft]: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600],
  [BUSINESS_METRICS.stepRuntime]: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
};

/**
 * Samples the operating figures (docs/operating.md: metrics and alerts) from MariaDB every `intervalMs` into the runtime's metric meter, so
 * they appear on the SDK's Prometheus endpoint. Counters count what happened since the worker
 * started; gauges show the database as it is. A failed round is counted and logged, and the
 * next one catches up on the events.
 */
export function startBusinessMetricsSampler(
  figures: OperatingFigures,
  meter: MetricMeter,
  intervalMs: number,
  opts: {
    /**
     * The enabled mailboxes of the registry and their folders: each gets its series from the
     * start, and poll health is exported for exactly these (a removed mailbox's old rows are not).
     * Without it, the mailboxes the database names.
     */
    mailboxes?: Array<{ id: string; folders: string[] }>;
    /** The configured drafter and its prompt version: their outcome series start at 0 for each mailbox. */
    drafter?: string;
    promptVersion?: string;
    /** The IDLE watchers' rows, and whether IMAP_IDLE is on: folders of enabled mailboxes per state. */
    watchers?: { on: boolean; list(): Promise<WatcherRow[]> };
    /** Case deadlines: overdue cases and escalations per mailbox. */
    cases?: CaseFigures;
  } = {},
): { stop(): Promise<void> } {
  const m = BUSINESS_METRICS;
  const startedAt = Date.now();
  const backlog = labelledGauge(
    meter.createGauge(m.backlog, 'int', '', 'Unfinished emails in the pipeline, per mailbox, status and priority'),
  );
  const oldestUnfinished = meter.createGauge(
    m.oldestUnfinished,
    'int',
    's',
    'Longest time an unfinished email has been in its current status',
  );
  const oldestUrgent = meter.createGauge(m.oldestUrgent, 'int', 's', 'Age since arrival of the oldest unfinished critical or high email');
  const waiting = labelledGauge(
    meter.createGauge(m.waiting, 'int', '', 'Emails waiting for a person (approval, manual review), per mailbox, status and priority'),
  );
  const oldestWaiting = meter.createGauge(m.oldestWaiting, 'int', 's', 'Longest time an email has waited for a person');
  const sends = labelledGauge(meter.createGauge(m.sends, 'int', '', 'send_attempts rows per status (in_doubt waits for a person)'));
  const deadLetters = labelledGauge(meter.createGauge(m.deadLetters, 'int', '', 'Dead queue jobs, per step and error class'));
  const lastSample = meter.createGauge(m.lastSample, 'int', 's', 'Unix time of the last successful sample of the database');
  const pollAge = labelledGauge(
    meter.createGauge(
      m.mailboxPollAge,
      'int',
      's',
      'Seconds since the last successful poll of a mailbox folder (never succeeded: since this worker started sampling)',
    ),
  );
  const pollFailures = labelledGauge(
    meter.createGauge(m.mailboxPollFailures, 'int', '', 'Failed polls of a mailbox folder since its last success'),
  );
  const authBlocked = labelledGauge(
    meter.createGauge(
      m.mailboxAuthBlocked,
      'int',
      '',
      '1 while a mailbox is blocked because its OAuth2 sign-in was refused (MAILBOX_AUTH_EXPIRED)',
    ),
  );
  const received = meter.createCounter(m.received, '', 'Emails received, per priority');
  const statusChanges = meter.createCounter(m.statusChanges, '', 'Email status transitions recorded, per new status');
  const retries = meter.createCounter(m.retries, '', 'Failed attempts that will be retried, per step and error class');
  const dead = meter.createCounter(m.dead, '', 'Jobs that went dead (no automatic retry left), per step and error class');
  const sampleFailures = meter.createCounter(m.sampleFailures, '', 'Rounds in which the database could not be sampled');
  const timeToDraft = meter.createHistogram(m.timeToDraft, 'float', 's', 'Arrival to the first draft waiting for a person');
  const stepRuntime = meter.createHistogram(m.stepRuntime, 'float', 's', 'Runtime of finished steps');
  const draftOutcomes = meter.createCounter(
    m.draftOutcomes,
    '',
    'Decided drafts per outcome (approved_unchanged, light_edit, heavy_edit, rejected, redrafted, written_by_person), mailbox, drafter and prompt version',
  );

  const idle = idleMetrics(meter, { watchers: m.idleWatchers, reconnects: m.idleReconnects }, opts.mailboxes ?? [], opts.watchers);
  const cases = caseMetrics(meter, { overdue: m.casesOverdue, escalations: m.caseEscalations }, opts.mailboxes ?? [], opts.cases);
  const triageAlerts = meter.createCounter(
    m.triageAlerts,
    '',
    'Triage events a person must see: feedback_report (an abuse complaint about our mail), reply_limit_reached (a sender held at REPLY_LIMIT_PER_HOUR)',
  );

  const loginRefusals = meter.createCounter(
    m.loginRefusals,
    '',
    'Refused review-inbox sign-ins, per reason (wrong_credentials, too_soon, account_locked, address_locked, burst)',
  );

  const autonomyDemotions = meter.createCounter(
    m.autonomyDemotions,
    '',
    'Categories whose record fell below their autonomy bar (the lower bound of the unchanged share), per mailbox: their drafts wait for a person again',
  );

  // Known label sets start at 0, so that the first increase is seen by rate() and increase().
  for (const b of opts.mailboxes ?? []) autonomyDemotions.add(0, { mailbox: b.id });
  for (const reason of LOGIN_REFUSAL_REASONS) loginRefusals.add(0, { reason });
  for (const event of Object.values(TRIAGE_ALERT_EVENTS)) triageAlerts.add(0, { event });
  for (const priority of PRIORITIES) received.add(0, { priority });
  for (const status of EMAIL_STATUSES) statusChanges.add(0, { status });
  for (const step of STEPS) {
    for (const error_class of ERROR_CLASSES) {
      retries.add(0, { step, error_class });
      dead.add(0, { step, error_class });
    }
  }
  sampleFailures.add(0);
  if (opts.drafter && opts.promptVersion) {
    for (const b of opts.mailboxes ?? []) {
      for (const outcome of DRAFT_OUTCOMES) {
        draftOutcomes.add(0, { outcome, mailbox: b.id, drafter: opts.drafter, prompt_version: opts.promptVersion });
      }
    }
  }

  let mark: Date | undefined;
  let failing = false;
  const round = async () => {
    try {
      const to = await figures.now(SETTLE_SECONDS);
      if (mark) {
        const events = await figures.eventsBetween(mark, to);
        for (const r of events.received) received.add(r.count, { priority: r.priority });
        // Label values only from the status words: an odd audit message must not make new series.
        for (const c of events.statusChanges) if (STATUS_WORDS.has(c.status)) statusChanges.add(c.count, { status: c.status });
        for (const f of events.failures) {
          const tags = { step: STEPS.includes(f.step) ? f.step : 'unknown', error_class: f.errorClass };
          (f.dead ? dead : retries).add(f.count, tags);
        }
        for (const s of events.timeToDraftSeconds) timeToDraft.record(s);
        for (const r of events.stepRuntimes) stepRuntime.record(r.seconds, { step: r.step });
        for (const a of events.triageAlerts) triageAlerts.add(a.count, { event: a.event });
        for (const r of events.loginRefusals ?? []) loginRefusals.add(r.count, { reason: r.reason });
        // Label values only from the registry: a mailbox id in an odd audit row makes no new series.
        const known = new Set((opts.mailboxes ?? []).map((b) => b.id));
        for (const d of events.autonomyDemotions ?? []) if (known.has(d.mailbox)) autonomyDemotions.add(d.count, { mailbox: d.mailbox });
        for (const o of events.draftOutcomes) {
          draftOutcomes.add(o.count, {
            outcome: o.outcome,
            mailbox: o.mailbox,
            drafter: DRAFTERS.has(o.drafter) ? o.drafter : 'other',
            prompt_version: PROMPT_VERSION_LABEL.test(o.promptVersion) ? o.promptVersion : 'other',
          });
        }
      }
      mark = to;
      const state = await figures.state();
      const mailboxIds = [...new Set([...(opts.mailboxes ?? []).map((b) => b.id), ...state.emails.map((g) => g.mailboxId)])];
      const count = (mailbox: string, status: string, priority: string) =>
        state.emails.find((g) => g.mailboxId === mailbox && g.status === status && g.priority === priority)?.count ?? 0;
      const grid = (statuses: readonly string[]) =>
        mailboxIds.flatMap((mailbox) =>
          PRIORITIES.flatMap((priority) =>
            statuses.map((status): [MetricTags, number] => [{ mailbox, status, priority }, count(mailbox, status, priority)]),
          ),
        );
      backlog(grid(UNFINISHED_STATUSES));
      waiting(grid(NEEDS_PERSON_STATUSES));
      const watched = opts.mailboxes
        ? opts.mailboxes.flatMap((b) => b.folders.map((folder) => ({ mailbox: b.id, folder })))
        : state.polls.map((p) => ({ mailbox: p.mailboxId, folder: p.folder }));
      const sinceStart = Math.floor((Date.now() - startedAt) / 1000);
      const poll = (w: { mailbox: string; folder: string }) => state.polls.find((p) => p.mailboxId === w.mailbox && p.folder === w.folder);
      pollAge(watched.map((w) => [w, poll(w)?.secondsSinceSuccess ?? sinceStart]));
      pollFailures(watched.map((w) => [w, poll(w)?.failuresInARow ?? 0]));
      const watchedMailboxes = [...new Set(watched.map((w) => w.mailbox))];
      authBlocked(
        watchedMailboxes.map((mailbox) => [{ mailbox }, state.polls.some((p) => p.mailboxId === mailbox && p.signInRefused) ? 1 : 0]),
      );
      const max = (values: number[]) => Math.max(0, ...values);
      const unfinished = state.emails.filter((g) => (UNFINISHED_STATUSES as readonly string[]).includes(g.status));
      oldestUnfinished.set(max(unfinished.map((g) => g.oldestInStatusSeconds)));
      oldestUrgent.set(max(unfinished.filter((g) => URGENT_PRIORITIES.includes(g.priority)).map((g) => g.oldestSinceArrivalSeconds)));
      oldestWaiting.set(max(state.emails.filter((g) => needsPerson(g.status)).map((g) => g.oldestInStatusSeconds)));
      sends(SEND_STATUSES.map((status) => [{ status }, state.sends[status] ?? 0]));
      deadLetters(state.deadLetters.map((d) => [{ step: d.step, error_class: d.errorClass }, d.count]));
      await idle.sample();
      await cases.sample();
      lastSample.set(Math.floor(Date.now() / 1000));
      if (failing) logger.info('business metrics sampled again');
      failing = false;
    } catch (err) {
      sampleFailures.add(1);
      // One line per outage, not one per round.
      if (!failing) logger.warn('business metrics not sampled; retrying every round', { error: errorMessage(err) });
      failing = true;
    }
  };

  // The next round is timed from the end of this one: a slow database never piles rounds up.
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const loop = () => {
    current = round().finally(() => {
      if (stopped) return;
      timer = setTimeout(loop, intervalMs);
      timer.unref();
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/** The sampler on its own one-connection pool: a slow figure never holds up an activity. */
export function startBusinessMetrics(config: Config, meter: MetricMeter): { stop(): Promise<void> } {
  const pool = createPool(config.databaseUrl, 1);
  const sampler = startBusinessMetricsSampler(
    createMariaDbOperatingFigures(pool, createMariaDbSignInRefusals(pool)),
    meter,
    (config.metrics?.sampleIntervalSeconds ?? 15) * 1000,
    {
      mailboxes: config.mailboxes.filter((b) => b.enabled).map((b) => ({ id: b.id, folders: b.imap.folders })),
      drafter: config.llm.mode,
      promptVersion: config.llm.mode === 'openai' ? PROMPT_VERSION : OFFLINE_PROMPT_VERSION,
      watchers: { on: config.imap.idle, list: () => createMariaDbWatcherHealth(pool).list() },
      cases: createMariaDbCaseFigures(pool),
    },
  );
  return {
    async stop() {
      await sampler.stop();
      await pool.end().catch(() => undefined);
    },
  };
}

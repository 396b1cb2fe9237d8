import { NEEDS_PERSON_STATUSES, SEND_PROBLEM_STATUSES, STATUS, UNFINISHED_STATUSES, type SendProblemStatus } from '../email';
import { URGENT_PRIORITIES, type MailboxPollState } from './operating-figures.port';
import { createMariaDbOperatingFigures } from './operating-figures.mariadb';
import { sqlList, type Pool } from '../platform/pool.mariadb';

export interface Metrics {
  windowMinutes: number;
  intake: { emails: number; perMinute: number; peakPerMinute: number };
  /** Fetched → draft waiting for a person, per email in the window. */
  timeToDraftMs: { p50: number | null; p95: number | null };
  steps: Record<string, { runs: number; p50Ms: number | null; p95Ms: number | null; failedAttempts: number; dead: number }>;
  backlog: {
    unfinished: number;
    oldestAgeSeconds: number | null;
    oldestUrgentAgeSeconds: number | null;
    /** Unfinished emails per mailbox (emails.mailbox_id). */
    byMailbox: Record<string, number>;
  };
  /** Poll health of the watched folders (docs/mailboxes.md). */
  polls: MailboxPollState[];
  deadLetters: number;
  /** Sends a person must decide on (in doubt) and sends that came back (bounced); all time, not the window. */
  sends: { inDoubt: number; bounced: number };
  alerts: string[];
}

function pct(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? null;
}

/** Statuses that mean something came out of the pipeline: a draft for a person, a reply sent. */
const OUTPUT_STATUSES = new Set<string>([...NEEDS_PERSON_STATUSES, STATUS.sent]);

/**
 * The operating figures from the product's own tables: intake and peak, time to a
 * draft, runtime percentiles and failures per step, backlog age, dead letters, and alerts when
 * urgent mail waits past its deadline or nothing has come out for a while. The worker exports the
 * same figures to Prometheus (workers/business-metrics.ts).
 */
/** A folder not polled successfully for this long raises an alert (as deploy/prometheus/alerts.yml does). */
export const POLL_STALE_SECONDS = 15 * 60;

export async function readMetrics(
  pool: Pool,
  windowMinutes: number,
  urgentDeadlineMinutes: number,
  /** The enabled mailboxes and folders of the registry; poll health is judged for these only. */
  mailboxes?: Array<{ id: string; folders: string[] }>,
): Promise<Metrics> {
  const figures = createMariaDbOperatingFigures(pool);
  const now = await figures.now();
  const events = await figures.eventsBetween(new Date(now.getTime() - Math.floor(windowMinutes) * 60_000), now);
  const state = await figures.state();

  const perMinute = new Map<string, number>();
  for (const r of events.received) perMinute.set(r.minute, (perMinute.get(r.minute) ?? 0) + r.count);
  const intake = [...perMinute.values()].reduce((sum, n) => sum + n, 0);
  const steps: Metrics['steps'] = {};
  const step = (name: string) => (steps[name] ??= { runs: 0, p50Ms: null, p95Ms: null, failedAttempts: 0, dead: 0 });
  for (const r of events.stepRuntimes) step(r.step).runs += 1;
  for (const f of events.failures) {
    const s = step(f.step);
    s.failedAttempts += f.count;
    if (f.dead) {
      s.dead += f.count;
      s.runs += f.count;
    }
  }
  for (const [name, s] of Object.entries(steps)) {
    const ms = events.stepRuntimes.filter((r) => r.step === name).map((r) => r.seconds * 1000);
    s.p50Ms = pct(ms, 50);
    s.p95Ms = pct(ms, 95);
  }
  const unfinishedGroups = state.emails.filter((g) => (UNFINISHED_STATUSES as readonly string[]).includes(g.status));
  const unfinished = unfinishedGroups.reduce((sum, g) => sum + g.count, 0);
  const oldest = unfinishedGroups.length > 0 ? Math.max(...unfinishedGroups.map((g) => g.oldestInStatusSeconds)) : null;
  const urgentGroups = unfinishedGroups.filter((g) => URGENT_PRIORITIES.includes(g.priority));
  const urgentAge = urgentGroups.length > 0 ? Math.max(...urgentGroups.map((g) => g.oldestSinceArrivalSeconds)) : null;
  const inDoubt = state.sends.in_doubt ?? 0;
  const outputs = events.statusChanges.filter((c) => OUTPUT_STATUSES.has(c.status)).reduce((sum, c) => sum + c.count, 0);
  const alerts: string[] = [];
  if (urgentAge !== null && urgentAge > urgentDeadlineMinutes * 60) {
    alerts.push(`urgent mail has waited ${Math.round(urgentAge / 60)} min in the pipeline (deadline ${urgentDeadlineMinutes} min)`);
  }
  if (inDoubt > 0) alerts.push(`${inDoubt} send(s) in doubt wait for a person (email-rag status)`);
  if (unfinished > 0 && outputs === 0) {
    alerts.push(`${unfinished} emails unfinished and no draft or reply came out in the last ${windowMinutes} min`);
  }
  const byMailbox: Record<string, number> = {};
  for (const g of unfinishedGroups) byMailbox[g.mailboxId] = (byMailbox[g.mailboxId] ?? 0) + g.count;
  const watched = mailboxes ? new Set(mailboxes.flatMap((b) => b.folders.map((f) => `${b.id}\n${f}`))) : null;
  const polls = state.polls.filter((p) => !watched || watched.has(`${p.mailboxId}\n${p.folder}`));
  // A refused sign-in blocks the mailbox until someone acts: said at once, once per mailbox.
  for (const p of polls.filter((q, i) => q.signInRefused && polls.findIndex((r) => r.mailboxId === q.mailboxId && r.signInRefused) === i))
    alerts.push(
      `mailbox ${p.mailboxId}: OAuth2 sign-in refused, not polled until fixed (email-rag mailboxes check ${p.mailboxId}): ${(p.signInRefused ?? '').slice(0, 300)}`,
    );
  for (const p of polls) {
    const stale = p.secondsSinceSuccess === null ? p.failuresInARow > 0 : p.secondsSinceSuccess > POLL_STALE_SECONDS;
    if (!stale) continue;
    const since =
      p.secondsSinceSuccess === null
        ? 'never polled successfully'
        : `not polled successfully for ${Math.round(p.secondsSinceSuccess / 60)} min`;
    alerts.push(`mailbox ${p.mailboxId} folder ${p.folder}: ${since} (${p.failuresInARow} failed polls in a row; email-rag status)`);
  }
  return {
    windowMinutes,
    intake: {
      emails: intake,
      perMinute: Number((intake / windowMinutes).toFixed(2)),
      peakPerMinute: Math.max(0, ...perMinute.values()),
    },
    timeToDraftMs: {
      p50: pct(
        events.timeToDraftSeconds.map((s) => s * 1000),
        50,
      ),
      p95: pct(
        events.timeToDraftSeconds.map((s) => s * 1000),
        95,
      ),
    },
    steps,
    backlog: { unfinished, oldestAgeSeconds: oldest, oldestUrgentAgeSeconds: urgentAge, byMailbox },
    polls,
    deadLetters: state.deadLetters.reduce((sum, d) => sum + d.count, 0),
    sends: { inDoubt, bounced: state.sends.bounced ?? 0 },
    alerts,
  };
}

const WAITING_OR_UNFINISHED = `(${sqlList([...UNFINISHED_STATUSES, ...NEEDS_PERSON_STATUSES])})`;
/** Furthest along first: waiting for a person, then the backlog from its end back to the intake. */
const STATUS_ORDER = sqlList([...UNFINISHED_STATUSES, ...NEEDS_PERSON_STATUSES].reverse());

async function rows<T>(pool: Pool, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await pool.query(sql, params)) as T[];
}

export async function backlogByStatusAndPriority(
  pool: Pool,
): Promise<Array<{ status: string; priority: string; n: number; oldestSeconds: number }>> {
  const r = await rows<{ status: string; priority: string; n: number; oldest: number }>(
    pool,
    `SELECT status, priority, COUNT(*) AS n, MAX(TIMESTAMPDIFF(SECOND, created_at, CURRENT_TIMESTAMP(3))) AS oldest
     FROM emails WHERE status IN ${WAITING_OR_UNFINISHED}
     GROUP BY status, priority ORDER BY FIELD(status, ${STATUS_ORDER}), FIELD(priority, 'critical', 'high', 'normal', 'low')`,
  );
  return r.map((x) => ({ status: x.status, priority: x.priority, n: Number(x.n), oldestSeconds: Number(x.oldest) }));
}

/** The email that has waited longest for a person (awaiting_approval or manual_review). */
export async function oldestWaiting(pool: Pool): Promise<{ id: string; subject: string | null; ageSeconds: number } | null> {
  const [r] = await rows<{ id: string; subject: string | null; age: number }>(
    pool,
    `SELECT id, subject, TIMESTAMPDIFF(SECOND, created_at, CURRENT_TIMESTAMP(3)) AS age FROM emails
     WHERE status IN (${sqlList(NEEDS_PERSON_STATUSES)}) ORDER BY created_at LIMIT 1`,
  );
  return r ? { id: r.id, subject: r.subject, ageSeconds: Number(r.age) } : null;
}

export interface SendProblem {
  emailId: string;
  draftId: string;
  status: SendProblemStatus;
  messageId: string;
  lastError: string | null;
  since: Date;
  subject: string | null;
}

/** Sends a person must look at: in doubt (decide) and bounced (the reply came back). */
export async function sendProblems(pool: Pool, limit = 200): Promise<SendProblem[]> {
  const r = await rows<{
    email_id: string;
    draft_id: string;
    status: SendProblemStatus;
    message_id: string;
    last_error: string | null;
    updated_at: Date;
    subject: string | null;
  }>(
    pool,
    `SELECT s.email_id, s.draft_id, s.status, s.message_id, s.last_error, s.updated_at, e.subject
     FROM send_attempts s LEFT JOIN emails e ON e.id = s.email_id
     WHERE s.status IN (${sqlList(SEND_PROBLEM_STATUSES)}) ORDER BY s.updated_at DESC LIMIT ?`,
    [limit],
  );
  return r.map((x) => ({
    emailId: x.email_id,
    draftId: x.draft_id,
    status: x.status,
    messageId: x.message_id,
    lastError: x.last_error,
    since: x.updated_at,
    subject: x.subject,
  }));
}

import type { Pool } from './pool';

export interface Metrics {
  windowMinutes: number;
  intake: { emails: number; perMinute: number; peakPerMinute: number };
  /** Fetched → draft waiting for a person, per email in the window. */
  timeToDraftMs: { p50: number | null; p95: number | null };
  steps: Record<string, { runs: number; p50Ms: number | null; p95Ms: number | null; failedAttempts: number; dead: number }>;
  backlog: { unfinished: number; oldestAgeSeconds: number | null; oldestUrgentAgeSeconds: number | null };
  deadLetters: number;
  /** Sends a person must decide on (in doubt) and sends that came back (bounced); all time, not the window. */
  sends: { inDoubt: number; bounced: number };
  alerts: string[];
}

const UNFINISHED = `('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted', 'approved')`;
const WAITING_OR_UNFINISHED = `('fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted', 'awaiting_approval', 'manual_review', 'approved')`;
const STATUS_ORDER = `'manual_review', 'awaiting_approval', 'approved', 'drafted', 'partially_indexed', 'indexed', 'parsed', 'fetched'`;

function pct(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? null;
}

async function rows<T>(pool: Pool, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await pool.query(sql, params)) as T[];
}

/**
 * The operating figures of seed 004 from the product's own tables: intake and peak, time to a
 * draft, runtime percentiles and failures per step, backlog age, dead letters, and alerts when
 * urgent mail waits past its deadline or nothing has come out for a while.
 */
export async function readMetrics(pool: Pool, windowMinutes: number, urgentDeadlineMinutes: number): Promise<Metrics> {
  const since = `CURRENT_TIMESTAMP(3) - INTERVAL ${Math.floor(windowMinutes)} MINUTE`;
  const perMinute = await rows<{ n: number }>(
    pool,
    `SELECT COUNT(*) AS n FROM emails WHERE created_at >= ${since} GROUP BY DATE_FORMAT(created_at, '%Y-%m-%d %H:%i')`,
  );
  const intake = perMinute.reduce((sum, r) => sum + Number(r.n), 0);
  const toDraft = await rows<{ ms: number }>(
    pool,
    `SELECT TIMESTAMPDIFF(MICROSECOND, e.created_at, MIN(a.created_at)) / 1000 AS ms
       FROM emails e JOIN audit_log a ON a.email_id = e.id AND a.event_type = 'status_changed'
         AND (a.message LIKE 'awaiting_approval:%' OR a.message LIKE 'manual_review:%')
       WHERE e.created_at >= ${since} GROUP BY e.id, e.created_at`,
  );
  const jobs = await rows<{ step: string; status: string; runtime_ms: number | null }>(
    pool,
    `SELECT step, status, runtime_ms FROM queue_jobs WHERE updated_at >= ${since}`,
  );
  const failures = await rows<{ step: string; n: number }>(
    pool,
    `SELECT JSON_VALUE(details, '$.step') AS step, COUNT(*) AS n FROM audit_log
       WHERE event_type IN ('retry_scheduled', 'job_dead') AND created_at >= ${since} GROUP BY step`,
  );
  const steps: Metrics['steps'] = {};
  for (const j of jobs) {
    const s = (steps[j.step] ??= { runs: 0, p50Ms: null, p95Ms: null, failedAttempts: 0, dead: 0 });
    s.runs += 1;
    if (j.status === 'dead') s.dead += 1;
  }
  for (const [step, s] of Object.entries(steps)) {
    const runtimes = jobs.filter((j) => j.step === step && j.status === 'done' && j.runtime_ms !== null).map((j) => Number(j.runtime_ms));
    s.p50Ms = pct(runtimes, 50);
    s.p95Ms = pct(runtimes, 95);
    s.failedAttempts = Number(failures.find((f) => f.step === step)?.n ?? 0);
  }
  const [backlog] = await rows<{ n: number; oldest: number | null; urgent: number | null }>(
    pool,
    `SELECT COUNT(*) AS n,
              MAX(TIMESTAMPDIFF(SECOND, status_changed_at, CURRENT_TIMESTAMP(3))) AS oldest,
              MAX(IF(priority IN ('critical', 'high'), TIMESTAMPDIFF(SECOND, created_at, CURRENT_TIMESTAMP(3)), NULL)) AS urgent
       FROM emails WHERE status IN ${UNFINISHED}`,
  );
  const [dead] = await rows<{ n: number }>(pool, `SELECT COUNT(*) AS n FROM queue_jobs WHERE status = 'dead'`);
  const [sends] = await rows<{ in_doubt: number | null; bounced: number | null }>(
    pool,
    `SELECT SUM(status = 'in_doubt') AS in_doubt, SUM(status = 'bounced') AS bounced FROM send_attempts`,
  );
  const inDoubt = Number(sends?.in_doubt ?? 0);
  const [recent] = await rows<{ n: number }>(
    pool,
    `SELECT COUNT(*) AS n FROM audit_log WHERE event_type = 'status_changed' AND created_at >= ${since}
         AND (message LIKE 'awaiting_approval:%' OR message LIKE 'manual_review:%' OR message LIKE 'sent:%')`,
  );
  const unfinished = Number(backlog?.n ?? 0);
  const urgentAge = backlog?.urgent === null || backlog?.urgent === undefined ? null : Number(backlog.urgent);
  const alerts: string[] = [];
  if (urgentAge !== null && urgentAge > urgentDeadlineMinutes * 60) {
    alerts.push(`urgent mail has waited ${Math.round(urgentAge / 60)} min in the pipeline (deadline ${urgentDeadlineMinutes} min)`);
  }
  if (inDoubt > 0) alerts.push(`${inDoubt} send(s) in doubt wait for a person (email-rag status)`);
  if (unfinished > 0 && Number(recent?.n ?? 0) === 0) {
    alerts.push(`${unfinished} emails unfinished and no draft or reply came out in the last ${windowMinutes} min`);
  }
  return {
    windowMinutes,
    intake: {
      emails: intake,
      perMinute: Number((intake / windowMinutes).toFixed(2)),
      peakPerMinute: Math.max(0, ...perMinute.map((r) => Number(r.n))),
    },
    timeToDraftMs: {
      p50: pct(
        toDraft.map((r) => Number(r.ms)),
        50,
      ),
      p95: pct(
        toDraft.map((r) => Number(r.ms)),
        95,
      ),
    },
    steps,
    backlog: {
      unfinished,
      oldestAgeSeconds: backlog?.oldest === null || backlog?.oldest === undefined ? null : Number(backlog.oldest),
      oldestUrgentAgeSeconds: urgentAge,
    },
    deadLetters: Number(dead?.n ?? 0),
    sends: { inDoubt, bounced: Number(sends?.bounced ?? 0) },
    alerts,
  };
}

/** Emails a person or the pipeline still owes something, per status and priority. */
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
     WHERE status IN ('awaiting_approval', 'manual_review') ORDER BY created_at LIMIT 1`,
  );
  return r ? { id: r.id, subject: r.subject, ageSeconds: Number(r.age) } : null;
}

export interface SendProblem {
  emailId: string;
  draftId: string;
  status: 'in_doubt' | 'bounced';
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
    status: 'in_doubt' | 'bounced';
    message_id: string;
    last_error: string | null;
    updated_at: Date;
    subject: string | null;
  }>(
    pool,
    `SELECT s.email_id, s.draft_id, s.status, s.message_id, s.last_error, s.updated_at, e.subject
     FROM send_attempts s LEFT JOIN emails e ON e.id = s.email_id
     WHERE s.status IN ('in_doubt', 'bounced') ORDER BY s.updated_at DESC LIMIT ?`,
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

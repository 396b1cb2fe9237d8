/**
 * The mailboxes' part of the worker's readiness: each folder of each enabled mailbox was polled
 * successfully recently enough. Polls run on schedules that any worker of the installation may
 * take, so this is a question about the installation's intake as this worker sees it through the
 * shared `mailbox_polls` table.
 */
import { HEALTH_DEPENDENCIES, HEALTH_STATES } from './operations.contract';
import type { HealthCheck, ReadinessProbe } from './readiness';
import type { PollScheduleState } from './readiness-probes.temporal';

/** One folder's poll record, its ages measured by the database's clock. */
export interface PollAge {
  mailboxId: string;
  folder: string;
  /** null: never polled successfully. */
  secondsSinceSuccess: number | null;
  /** Set while the latest attempt failed. */
  lastError: string | null;
  failuresInARow: number;
}

/** A mailbox the worker serves, as the registry says. */
export interface WatchedMailbox {
  id: string;
  enabled: boolean;
  imap: { folders: string[]; pollIntervalSeconds: number };
}

/**
 * How old a last successful poll may be: three poll intervals (two scheduled runs may be missed,
 * e.g. one skipped behind a long run and one that failed once) plus a minute for the run itself.
 */
export const POLL_READY_INTERVALS = 3;
export const POLL_READY_GRACE_SECONDS = 60;
/** Failed attempts in a row that make a folder `failing` even after a recent success: one poll run that used all its tries. */
export const POLL_FAILING_ATTEMPTS = 3;

export function pollBoundSeconds(pollIntervalSeconds: number): number {
  return POLL_READY_INTERVALS * pollIntervalSeconds + POLL_READY_GRACE_SECONDS;
}

type Judged = Omit<HealthCheck, 'dependency'>;

/**
 * One folder's state, in this order: `failing` when its latest attempt failed and either it has
 * failed POLL_FAILING_ATTEMPTS times in a row or it has not succeeded since the worker started;
 * `ok` when it succeeded since the worker started, within the bound; `starting` while the worker
 * is younger than the bound (a restart waits for the next scheduled poll, not for the bound);
 * otherwise `stale`.
 */
export function judgePollAge(mailbox: WatchedMailbox, folder: string, age: PollAge | undefined, uptimeSeconds: number): Judged {
  const target = `${mailbox.id}/${folder}`;
  const bound = pollBoundSeconds(mailbox.imap.pollIntervalSeconds);
  const since = age?.secondsSinceSuccess ?? null;
  const succeededSinceStart = since !== null && since <= uptimeSeconds;
  if (age?.lastError && (age.failuresInARow >= POLL_FAILING_ATTEMPTS || !succeededSinceStart)) {
    return {
      target,
      state: HEALTH_STATES.failing,
      reason: `${age.failuresInARow} failed poll attempt(s) in a row: ${age.lastError.slice(0, 300)}`,
    };
  }
  if (succeededSinceStart && since <= bound) return { target, state: HEALTH_STATES.ok };
  if (uptimeSeconds < bound) {
    return {
      target,
      state: HEALTH_STATES.starting,
      reason: `not polled successfully since the worker started ${Math.round(uptimeSeconds)} s ago (ready after its first successful poll)`,
    };
  }
  const last = since === null ? 'never polled successfully' : `last successful poll ${Math.round(since)} s ago`;
  return {
    target,
    state: HEALTH_STATES.stale,
    reason: `${last}; expected within ${bound} s (${POLL_READY_INTERVALS} poll intervals + ${POLL_READY_GRACE_SECONDS} s)`,
  };
}

export interface MailboxProbeDeps {
  mailboxes: readonly WatchedMailbox[];
  pollAges(): Promise<PollAge[]>;
  /** Seconds since the worker started. */
  uptimeSeconds(): number;
  /** Asked only for folders that are not `ok`: a paused schedule expects nothing, a missing one explains why. */
  pollSchedule(mailboxId: string, timeoutMs: number): Promise<PollScheduleState>;
}

/** A paused schedule expects nothing of the folder; a missing one explains why it is not polled. */
function withSchedule(judged: Judged, schedule: PollScheduleState | undefined): Judged {
  if (schedule === 'missing') return { ...judged, reason: `${judged.reason}; no poll schedule (email-rag schedules install)` };
  if (schedule?.paused)
    return { target: judged.target, state: HEALTH_STATES.paused, reason: `poll schedule paused: ${schedule.note || 'no note'}` };
  return judged;
}

/** One check per folder of each enabled mailbox. */
export function mailboxPollProbe(deps: MailboxProbeDeps): ReadinessProbe {
  return {
    dependency: HEALTH_DEPENDENCIES.mailbox,
    async run(timeoutMs) {
      const ages = new Map((await deps.pollAges()).map((a) => [`${a.mailboxId}\n${a.folder}`, a]));
      const uptime = deps.uptimeSeconds();
      // Asked once per mailbox, and only for one with a folder that is not ready; a lookup that fails changes nothing.
      const schedules = new Map<string, Promise<PollScheduleState | undefined>>();
      const scheduleOf = (id: string) => {
        // Half the time: the ages were read first, and the whole probe is cut off at timeoutMs.
        const known = schedules.get(id) ?? deps.pollSchedule(id, timeoutMs / 2).catch(() => undefined);
        schedules.set(id, known);
        return known;
      };
      const folders = deps.mailboxes.filter((m) => m.enabled).flatMap((m) => m.imap.folders.map((folder) => ({ m, folder })));
      return Promise.all(
        folders.map(async ({ m, folder }) => {
          const judged = judgePollAge(m, folder, ages.get(`${m.id}\n${folder}`), uptime);
          return judged.state === HEALTH_STATES.ok ? judged : withSchedule(judged, await scheduleOf(m.id));
        }),
      );
    },
  };
}

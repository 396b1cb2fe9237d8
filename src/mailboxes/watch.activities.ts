import { Context } from '@temporalio/activity';
import { WATCHER_STATES, MAILBOX_AUDIT_EVENTS } from './mailboxes.contract';
import { classifyError } from '../platform/retry-decision';
import { TransientError } from '../platform/errors';
import type { MailboxEntry } from './mailbox-registry';
import type { FolderWatch, NewMessages, OwnReplies } from './folder-watch.port';
import type { PollTrigger } from './poll-trigger.port';
import type { WatcherHealth } from './watcher-health.port';
import type { AuditLog } from '../platform/store.port';
import type { MailboxDirectory } from './mailbox-directory.port';
import { mailboxOf } from './mailbox-of';
import { watchWorkflowId as watcherId } from './schedule-ids';

/** How often a watch heartbeats to Temporal (its heartbeat timeout is HEARTBEAT_TIMEOUT, 20 s). */
const BEAT_MS = 5_000;
/** How often it tells the database it is alive (`email-rag status` calls a silent one stale). */
const SEEN_MS = 15_000;

/** Push intake's dependencies; absent in a worker built without them (tests of other parts). */
export interface IdleDeps {
  /** IMAP_IDLE: off means no folder is watched and every watcher ends at its next session. */
  enabled: boolean;
  /** The IDLE connection of one registry entry (its secret is read here: a missing one fails only it). */
  folderWatch(entry: MailboxEntry): FolderWatch;
  pollTrigger: PollTrigger;
  health: WatcherHealth;
  /** The replies this installation sent: their copies filed in the Sent folder wake no poll. */
  ownReplies?: OwnReplies;
}

/** What the watcher of a mailbox should do now, from this worker's registry. */
export interface WatchPlan {
  watch: boolean;
  folders: string[];
  /** Why not: the mailbox is disabled or removed, or IMAP_IDLE is off. */
  reason?: 'disabled' | 'removed' | 'off';
}

export interface WatchFolderInput {
  mailboxId: string;
  folder: string;
  /** The session ends at this time (epoch ms), whichever attempt is running: every folder's ends together. */
  untilMs: number;
}

/**
 * The watcher's activities. `watchFolder` holds one folder in IDLE for one session and wakes the
 * mailbox's poll on every new-mail notice (and once on connecting, for mail that came while no
 * watcher was connected). A lost connection is recorded (state `reconnecting`, one audit row per
 * outage) and thrown: Temporal's retry (1 s, 4 s, 16 s, then every 30 s, unlimited) reconnects,
 * on this or another worker, and the schedule keeps intake going meanwhile.
 */
/** What the watchers need: the mailboxes, the audit log and the IDLE switch with its ports. */
export interface WatchDeps {
  mailboxes: MailboxDirectory;
  audit: AuditLog;
  /** Push intake (IMAP IDLE watchers); absent: a worker that watches nothing. */
  idle?: IdleDeps;
}

/** The watchers' activities as the watch workflow proxies them. */
export type WatchActivities = ReturnType<typeof createWatchActivities>;

export function createWatchActivities(deps: WatchDeps) {
  const stateOf = (mailboxId: string): WatchPlan => {
    const entry = deps.mailboxes.list().find((m) => m.id === mailboxId);
    if (!entry) return { watch: false, folders: [], reason: 'removed' };
    if (!entry.enabled) return { watch: false, folders: entry.imap.folders, reason: 'disabled' };
    if (!deps.idle?.enabled) return { watch: false, folders: entry.imap.folders, reason: 'off' };
    // The Sent folder too: a reply a person files there from their own client wakes the poll,
    // which reads it as an answer beside the assistant (src/email/answered-elsewhere/sent-scan.ts).
    const sent = entry.imap.sentFolder;
    return { watch: true, folders: sent && !entry.imap.folders.includes(sent) ? [...entry.imap.folders, sent] : entry.imap.folders };
  };
  return {
    async planWatch(input: { mailboxId: string }): Promise<WatchPlan> {
      const plan = stateOf(input.mailboxId);
      if (!plan.watch && deps.idle) {
        for (const folder of plan.folders)
          await deps.idle.health.enter({ mailboxId: input.mailboxId, folder, state: WATCHER_STATES.stopped });
        await deps.audit.record({
          emailId: null,
          correlationId: watcherId(input.mailboxId),
          eventType: MAILBOX_AUDIT_EVENTS.watcherStopped,
          message: `${input.mailboxId}: no IDLE watcher (${plan.reason === 'off' ? 'IMAP_IDLE is off' : `mailbox ${plan.reason}`}); the poll schedule alone takes mail`,
          details: { mailboxId: input.mailboxId, reason: plan.reason ?? null },
        });
      }
      return plan;
    },

    async watchFolder(input: WatchFolderInput): Promise<{ wakeups: number }> {
      const idle = deps.idle;
      const plan = stateOf(input.mailboxId);
      if (!idle || !plan.watch || !plan.folders.includes(input.folder)) return { wakeups: 0 };
      const ctx = Context.current();
      const where = { mailboxId: input.mailboxId, folder: input.folder };
      const abort = new AbortController();
      const session = setTimeout(() => abort.abort(), Math.max(0, input.untilMs - Date.now()));
      ctx.cancellationSignal.addEventListener('abort', () => abort.abort(), { once: true });
      let beats = 0;
      const beat = setInterval(() => {
        ctx.heartbeat();
        if (++beats % (SEEN_MS / BEAT_MS) === 0) idle.health.seen(where).catch(() => undefined);
      }, BEAT_MS);
      const waker = coalescingWaker(
        () => idle.pollTrigger.wake(input.mailboxId),
        async (err) => {
          const c = classifyError(err);
          ctx.log.warn('watcher could not wake the poll', { ...where, code: c.code, error: c.message });
          await deps.audit.record({
            emailId: null,
            correlationId: watcherId(input.mailboxId),
            eventType: MAILBOX_AUDIT_EVENTS.watcherWakeFailed,
            errorClass: c.errorClass,
            message: `${input.mailboxId}/${input.folder}: new mail noticed, but the poll could not be started (${c.code}): ${c.message}; the schedule takes it`,
            details: { ...where, code: c.code },
          });
        },
      );
      try {
        if (ctx.info.attempt === 1) await idle.health.enter({ ...where, state: WATCHER_STATES.connecting });
        const { entry } = mailboxOf(deps, input.mailboxId);
        const watch = idle.folderWatch(entry);
        // Every reply we send is filed in Sent: only what someone else filed there wakes the poll.
        const own = input.folder === entry.imap.sentFolder && !entry.imap.folders.includes(input.folder) ? idle.ownReplies : undefined;
        const onNewMail = async (found?: NewMessages) => {
          if (own && found && (await onlyOurs(own, found))) return;
          void idle.health.wokeUp(where).catch(() => undefined);
          waker.wake();
        };
        await watch.watch(
          input.folder,
          abort.signal,
          {
            onConnected: () => {
              void idle.health.enter({ ...where, state: WATCHER_STATES.idle }).catch(() => undefined);
              if (ctx.info.attempt > 1) void reconnected(deps, where, watcherId(input.mailboxId), ctx.info.attempt);
              waker.wake();
            },
            onNewMail: (found) => void onNewMail(found),
          },
          { identify: own !== undefined },
        );
        await waker.settled();
        if (ctx.cancellationSignal.aborted) {
          // A worker shutting down hands the watch on (the retry runs on another worker within
          // seconds); a terminated or cancelled watcher has stopped for good.
          if (ctx.cancellationDetails?.workerShutdown) throw new TransientError('worker shutting down: the watch moves to another worker');
          await idle.health.enter({ ...where, state: WATCHER_STATES.stopped }).catch(() => undefined);
          throw ctx.cancellationSignal.reason;
        }
        return { wakeups: waker.count() };
      } catch (err) {
        if (ctx.cancellationSignal.aborted && !(err instanceof TransientError)) throw err;
        const c = classifyError(err);
        // Bookkeeping must not hide the failure: a database outage loses the note only.
        await idle.health.enter({ ...where, state: WATCHER_STATES.reconnecting, error: `${c.code}: ${c.message}` }).catch(() => undefined);
        // One audit row per outage, not one per retry every 30 s.
        if (ctx.info.attempt === 1 || ctx.info.attempt % 100 === 0) {
          await deps.audit
            .record({
              emailId: null,
              correlationId: watcherId(input.mailboxId),
              eventType: MAILBOX_AUDIT_EVENTS.watcherDisconnected,
              errorClass: c.errorClass,
              message: `${input.mailboxId}/${input.folder}: IDLE watcher lost its connection (${c.code}): ${c.message}; reconnecting with backoff, the poll schedule takes mail meanwhile`,
              details: { ...where, code: c.code, attempt: ctx.info.attempt },
            })
            .catch(() => undefined);
        }
        throw err;
      } finally {
        clearTimeout(session);
        clearInterval(beat);
      }
    },
  };
}

async function reconnected(
  deps: Pick<WatchDeps, 'audit'>,
  where: { mailboxId: string; folder: string },
  workflowId: string,
  attempt: number,
): Promise<void> {
  await deps.audit
    .record({
      emailId: null,
      correlationId: workflowId,
      eventType: MAILBOX_AUDIT_EVENTS.watcherReconnected,
      message: `${where.mailboxId}/${where.folder}: IDLE watcher connected again after ${attempt - 1} failed attempt(s)`,
      details: { ...where, attempt },
    })
    .catch(() => undefined);
}

/**
 * Whether every new message is a reply of ours (by its Message-ID). A message without one, or a
 * lookup that fails, counts as someone else's: the poll is woken, as it always was.
 */
async function onlyOurs(own: OwnReplies, found: NewMessages): Promise<boolean> {
  const ids = found.messageIds;
  if (ids.length === 0 || ids.some((id) => !id)) return false;
  const ours = await own.ours(ids as string[]).catch(() => new Set<string>());
  return ids.every((id) => ours.has(id!));
}

/**
 * Wake-ups one at a time: a notice while one is in flight makes exactly one more after it (the
 * schedule queues one run after the running one), so a burst of new mail costs two triggers, and
 * none is lost.
 */
function coalescingWaker(wake: () => Promise<unknown>, onError: (err: unknown) => Promise<void>) {
  let running: Promise<void> | undefined;
  let again = false;
  let count = 0;
  const run = async (): Promise<void> => {
    do {
      again = false;
      count += 1;
      await wake().catch((err: unknown) => onError(err).catch(() => undefined));
    } while (again);
    running = undefined;
  };
  return {
    wake(): void {
      if (running) again = true;
      else running = run();
    },
    settled: async (): Promise<void> => {
      await running;
    },
    count: () => count,
  };
}

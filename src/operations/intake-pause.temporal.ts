/**
 * Pausing and resuming the intake of one installation (its task queue): every schedule that starts
 * its workflows, the IMAP IDLE watchers, and the poll runs already under way. Before a backup that
 * is taken while the workers keep running, and before maintenance on a mail server: nothing new
 * enters the pipeline, while emails already in it (drafts, decisions, sends) go on.
 */
import { ScheduleNotFoundError, type Client, type ScheduleDescription } from '@temporalio/client';
import type { Config } from '../platform/config';
import { WORKFLOW_TYPES } from '../platform/contract';
import { installWatchers } from '../mailboxes/index.adapters';
import { wantedSchedules } from './schedules';
import { INTAKE_PAUSE_NOTE } from './operations.contract';

export interface IntakePaused {
  /** Schedules this pause paused. */
  paused: string[];
  /** Schedules that were paused already (by a person, for another reason): left as they are. */
  alreadyPaused: string[];
  /** IDLE watcher workflows ended (`email-rag intake resume` or `schedules install` starts them again). */
  watchersStopped: string[];
  /** Poll runs still running when the wait ended (empty: the intake is quiet). */
  pollsRunning: string[];
}

export interface IntakeResumed {
  resumed: string[];
  /** Paused for another reason than an intake pause: left paused. */
  leftPaused: string[];
  watchersStarted: string[];
}

/** The schedules of this installation: those whose action starts a workflow on its task queue. */
async function ownSchedules(client: Client, config: Config): Promise<Array<{ id: string; d: ScheduleDescription }>> {
  const own: Array<{ id: string; d: ScheduleDescription }> = [];
  for await (const summary of client.schedule.list()) {
    try {
      const d = await client.schedule.getHandle(summary.scheduleId).describe();
      if (d.action.type === 'startWorkflow' && d.action.taskQueue === config.temporal.taskQueue) own.push({ id: summary.scheduleId, d });
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err; // the list lags behind a delete
    }
  }
  return own;
}

async function runningPolls(client: Client, config: Config): Promise<string[]> {
  const query = `WorkflowType = '${WORKFLOW_TYPES.imapPoll}' AND ExecutionStatus = 'Running' AND TaskQueue = '${config.temporal.taskQueue}'`;
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
  return ids;
}

/**
 * Pauses every schedule of the installation, ends its IDLE watchers and waits (up to `waitMs`) for
 * the poll runs in progress to end. A poll run is waited for rather than cancelled: a run cut
 * between starting workflows and moving the watermark is harmless, but one that goes on while a
 * backup is taken could start emails that one half of the backup knows and the other does not.
 */
export async function pauseIntake(client: Client, config: Config, opts: { by: string; waitMs: number }): Promise<IntakePaused> {
  const note = `${INTAKE_PAUSE_NOTE} by ${opts.by} at ${new Date().toISOString()}`;
  const result: IntakePaused = { paused: [], alreadyPaused: [], watchersStopped: [], pollsRunning: [] };
  for (const { id, d } of await ownSchedules(client, config)) {
    if (d.state.paused) {
      result.alreadyPaused.push(id);
      continue;
    }
    await client.schedule.getHandle(id).pause(note);
    result.paused.push(id);
  }
  const idleOff = { ...config, imap: { ...config.imap, idle: false } };
  result.watchersStopped = (await installWatchers(client, idleOff)).filter((w) => w.action === 'stopped').map((w) => w.id);
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    result.pollsRunning = await runningPolls(client, config);
    if (result.pollsRunning.length === 0 || Date.now() >= deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/**
 * Lifts the pauses `pauseIntake` made (a schedule a person paused for another reason stays paused)
 * and starts the IDLE watchers the configuration wants. Each schedule gets its usual note back, so
 * `schedules install` finds it unchanged.
 */
export async function resumeIntake(client: Client, config: Config): Promise<IntakeResumed> {
  const usualNotes = new Map(wantedSchedules(config).map((s) => [s.id, s.note]));
  const result: IntakeResumed = { resumed: [], leftPaused: [], watchersStarted: [] };
  for (const { id, d } of await ownSchedules(client, config)) {
    if (!d.state.paused) continue;
    if (!(d.state.note ?? '').startsWith(INTAKE_PAUSE_NOTE)) {
      result.leftPaused.push(id);
      continue;
    }
    await client.schedule.getHandle(id).unpause(usualNotes.get(id) ?? '');
    result.resumed.push(id);
  }
  result.watchersStarted = (await installWatchers(client, config)).filter((w) => w.action === 'started').map((w) => w.id);
  return result;
}

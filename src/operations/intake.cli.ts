/**
 * `email-rag intake pause|resume`: no new mail enters the pipeline while the emails in it go on
 * (before a backup taken with the workers running, or maintenance on the mail server).
 */
import { pauseIntake, resumeIntake, type IntakePaused, type IntakeResumed } from './intake-pause.temporal';
import { CliError } from '../platform/cli-context';
import { byOrActor, groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';

const PAUSE_USAGE = `intake pause [--by NAME] [--wait-seconds N] [--json]
                                        pause every schedule of this installation, end the IMAP IDLE
                                        watchers and wait (default 660 s) for poll runs in progress;
                                        exit 1 if a poll run is still running
intake resume [--json]                  lift those pauses and start the IDLE watchers again`;

const list = (ids: string[]): string => (ids.length > 0 ? ids.join(', ') : 'none');

const intakePause: CliCommand<IntakePaused> = {
  name: 'intake pause',
  usage: PAUSE_USAGE,
  options: { ...JSON_OPTION, by: { type: 'string' }, 'wait-seconds': { type: 'string' } },
  needs: { imap: true },
  accepts: (rest) => rest.length === 0,
  async run(ctx, { values }) {
    const raw = text(values, 'wait-seconds');
    // A poll run lasts at most 10 minutes (its schedule's timeout): the default waits that long.
    const seconds = raw === undefined ? 660 : Number(raw);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 3600)
      throw new CliError('--wait-seconds takes a whole number of seconds between 0 and 3600', 2);
    return pauseIntake(await ctx.temporal(), ctx.config(), { by: byOrActor(values), waitMs: seconds * 1000 });
  },
  format: (r) =>
    [
      `schedules paused: ${list(r.paused)}`,
      ...(r.alreadyPaused.length > 0 ? [`already paused (left as they are): ${list(r.alreadyPaused)}`] : []),
      `IDLE watchers stopped: ${list(r.watchersStopped)}`,
      r.pollsRunning.length === 0
        ? 'intake paused: no poll run is running'
        : `NOT QUIET: poll runs still running: ${list(r.pollsRunning)} (run the command again to wait longer)`,
    ].join('\n'),
  exitCode: (r) => (r.pollsRunning.length > 0 ? 1 : undefined),
};

const intakeResume: CliCommand<IntakeResumed> = {
  name: 'intake resume',
  options: JSON_OPTION,
  needs: { imap: true },
  accepts: (rest) => rest.length === 0,
  async run(ctx) {
    return resumeIntake(await ctx.temporal(), ctx.config());
  },
  format: (r) =>
    [
      `schedules resumed: ${list(r.resumed)}`,
      ...(r.leftPaused.length > 0 ? [`paused for another reason (left paused): ${list(r.leftPaused)}`] : []),
      `IDLE watchers started: ${list(r.watchersStarted)}`,
    ].join('\n'),
};

export const intakeCommands: CliCommand[] = [intakePause, intakeResume, groupUsage('intake', 'intake pause|resume')];

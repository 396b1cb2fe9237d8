/**
 * `email-rag schedules install`, `poll`, `cleanup`: the schedules the worker relies on, and a
 * schedule's run now; `temporal setup` (the namespace, temporal-setup.cli.ts) is listed with them.
 */
import { temporalSetupCommand } from './temporal-setup.cli';
import { CLEANUP_SCHEDULE_ID, installSchedules, mailboxesHeldByIntakePause, triggerPoll, triggerSchedule } from './schedules';
import { installWatchers } from '../mailboxes/index.adapters';
import { onlySubcommand, text, type CliCommand } from '../platform/cli-command';

const schedulesInstall: CliCommand<void> = {
  name: 'schedules install',
  usage: `schedules install                       install, update or remove schedules: one IMAP poll per enabled mailbox
                                        (created/updated/unchanged/removed per schedule)`,
  needs: { imap: true },
  accepts: (rest) => rest.length === 0,
  async run(ctx) {
    const cfg = ctx.config();
    const client = await ctx.temporal();
    for (const s of await installSchedules(client, cfg)) console.log(`schedule ${s.id} ${s.action}`);
    // A paused intake (a backup under way, a restored snapshot) keeps its watchers off.
    const held = await mailboxesHeldByIntakePause(client, cfg);
    const mailboxes = cfg.mailboxes.map((m) => (held.has(m.id) ? { ...m, enabled: false } : m));
    const watchers = await installWatchers(client, { ...cfg, mailboxes });
    // The watchers on stderr: stdout stays one line per schedule for scripts.
    console.error(
      `email-rag schedules: IDLE watchers ${cfg.imap.idle ? 'on' : 'off (IMAP_IDLE=off)'}${watchers.map((w) => `; ${w.id} ${w.action}`).join('')}` +
        (held.size > 0 ? `; held by an intake pause until email-rag intake resume: ${[...held].join(', ')}` : ''),
    );
  },
};

export const scheduleCommands: CliCommand[] = [
  schedulesInstall,
  onlySubcommand('schedules', 'install'),
  temporalSetupCommand,
  onlySubcommand('temporal', 'setup'),
];

export const pollCommand: CliCommand<string[]> = {
  name: 'poll',
  usage: 'poll [--mailbox ID]                     run the IMAP poll schedule of one mailbox (default: every enabled one) once, now',
  options: { mailbox: { type: 'string' } },
  needs: { imap: true },
  async run(ctx, { values }) {
    const polled = await triggerPoll(await ctx.temporal(), ctx.config(), text(values, 'mailbox'));
    const now = polled.filter((r) => r.after === null).map((r) => r.mailboxId);
    // Never two poll runs of one mailbox at once: the request waits for the run in progress.
    const queued = polled
      .filter((p) => p.after !== null)
      .map((r) => `poll of ${r.mailboxId} queued: it runs when the poll in progress (${r.after}) ends`);
    return [...(now.length > 0 ? [`poll triggered: ${now.join(', ')}`] : []), ...queued];
  },
};

export const cleanupCommand: CliCommand<string> = {
  name: 'cleanup',
  usage: 'cleanup                                 run the stuck-processing cleanup once, now',
  async run(ctx) {
    await triggerSchedule(await ctx.temporal(), CLEANUP_SCHEDULE_ID);
    return 'cleanup triggered';
  },
};

/**
 * `email-rag schedules install`, `temporal setup`, `poll`, `cleanup`: the schedules and the
 * namespace the worker relies on, and a schedule's run now.
 */
import { registerSearchAttributes } from './search-attributes.temporal';
import { setNamespaceRetention } from '../platform/temporal-namespace';
import { CLEANUP_SCHEDULE_ID, installSchedules, triggerPoll, triggerSchedule } from './schedules';
import { installWatchers } from '../mailboxes/index.adapters';
import { CliError } from '../platform/cli-context';
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
    // The watchers on stderr: stdout stays one line per schedule for scripts.
    const watchers = await installWatchers(client, cfg);
    console.error(
      `email-rag schedules: IDLE watchers ${cfg.imap.idle ? 'on' : 'off (IMAP_IDLE=off)'}${watchers.map((w) => `; ${w.id} ${w.action}`).join('')}`,
    );
  },
};

const temporalSetup: CliCommand<{ retentionSet: boolean }> = {
  name: 'temporal setup',
  usage: `temporal setup [--retention-days N]     register the search attributes (EmailStatus, …) on the namespace;
                                        with --retention-days also set how long closed histories are kept`,
  options: { 'retention-days': { type: 'string' } },
  accepts: (rest) => rest.length === 0,
  async run(ctx, { values }) {
    const days = text(values, 'retention-days');
    const retention = days === undefined ? undefined : Number(days);
    if (retention !== undefined && (!Number.isInteger(retention) || retention < 1 || retention > 3650))
      throw new CliError('--retention-days takes a whole number of days between 1 and 3650', 2);
    const { namespace } = ctx.config().temporal;
    const { connection } = await ctx.temporal();
    const r = await registerSearchAttributes(connection, namespace);
    console.log(
      `search attributes on ${namespace}: added ${r.added.join(', ') || 'none'}; already there ${r.present.join(', ') || 'none'}`,
    );
    if (retention === undefined) return { retentionSet: true };
    const set = await setNamespaceRetention(connection, namespace, retention);
    if (set.outcome === 'set') {
      console.log(`retention on ${namespace}: ${retention} days (was ${set.beforeDays ?? '?'})`);
      return { retentionSet: true };
    }
    console.error(`email-rag: retention not set by the server (${set.reason}); set it where the cluster is administered`);
    return { retentionSet: false };
  },
  exitCode: (r) => (r.retentionSet ? undefined : 1),
};

export const scheduleCommands: CliCommand[] = [
  schedulesInstall,
  onlySubcommand('schedules', 'install'),
  temporalSetup,
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

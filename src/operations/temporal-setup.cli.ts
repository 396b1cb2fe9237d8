/**
 * `email-rag temporal setup [--retention-days N]`: the namespace the worker relies on. Exit 0 when
 * all is in place; 4 when the server refused part of it and `WARNING:` lines on stderr say what an
 * administrator must do by hand (an installation's init goes on: the rest works, and the doctor
 * keeps checking the search attributes); 1 when the namespace is missing and may not be created.
 */
import { CliError } from '../platform/cli-context';
import { text, type CliCommand } from '../platform/cli-command';
import { setUpTemporalNamespace, type TemporalSetupReport } from './temporal-setup';

/** Done, except what the WARNING lines say: the exit code init scripts go on with. */
export const SETUP_BY_HAND_EXIT = 4;

export const temporalSetupCommand: CliCommand<TemporalSetupReport> = {
  name: 'temporal setup',
  usage: `temporal setup [--retention-days N]     create the namespace when missing, register the search attributes (EmailStatus, …);
                                        with --retention-days also set how long closed histories are kept.
                                        Exit 4 with WARNING lines: the server refused part of it, do that by hand`,
  options: { 'retention-days': { type: 'string' } },
  accepts: (rest) => rest.length === 0,
  async run(ctx, { values }) {
    const days = text(values, 'retention-days');
    const retentionDays = days === undefined ? undefined : Number(days);
    if (retentionDays !== undefined && (!Number.isInteger(retentionDays) || retentionDays < 1 || retentionDays > 3650))
      throw new CliError('--retention-days takes a whole number of days between 1 and 3650', 2);
    const { namespace } = ctx.config().temporal;
    const { connection } = await ctx.temporal();
    const report = await setUpTemporalNamespace(connection, namespace, { retentionDays });
    if (report.outcome === 'no-namespace') throw new CliError(report.warnings.join('\n'), 1);
    // stderr: stdout stays what was done, one line per part, for scripts.
    for (const warning of report.warnings) console.error(`WARNING: ${warning}`);
    return report;
  },
  format: (r) => r.lines.join('\n'),
  exitCode: (r) => (r.outcome === 'by-hand' ? SETUP_BY_HAND_EXIT : undefined),
};

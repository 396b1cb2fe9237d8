/**
 * `email-rag mailboxes mode ID live|shadow`: switches a mailbox between shadow mode (drafts in the
 * background, asks nobody, sends nothing) and live, in MAILBOXES_FILE (comments kept), with an
 * audit row naming who switched it. Workers read the registry when they start: the switch takes
 * effect for mail drafted after they restarted.
 */
import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../platform/config';
import { CliError, connectDatabase } from '../platform/cli-context';
import { byOrActor, type CliCommand } from '../platform/cli-command';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { registryDefaults } from './mailboxes.config';
import { setMailboxMode } from './mailbox-registry-edit';
import { MAILBOX_AUDIT_EVENTS, MAILBOX_MODES, type MailboxMode } from './mailboxes.contract';

export async function mailboxesSetMode(config: Config, id: string, mode: string, by: string): Promise<string> {
  if (mode !== MAILBOX_MODES.live && mode !== MAILBOX_MODES.shadow)
    throw new CliError(`mode must be ${MAILBOX_MODES.live} or ${MAILBOX_MODES.shadow}, got "${mode}"`, 2);
  const file = config.mailboxesFile;
  if (!file)
    throw new CliError(
      "no MAILBOXES_FILE: a mailbox's mode is set in the registry file (docs/mailboxes.md shows how to move the default mailbox there)",
      2,
    );
  const full = path.resolve(file);
  const result = setMailboxMode(readFileSync(full, 'utf8'), id, mode as MailboxMode, {
    json: /\.json$/i.test(full),
    defaults: registryDefaults(config),
  });
  if (!result.changed) return `mailbox ${id} is already ${mode} in ${file}`;
  // The audit row first: a switch nobody can account for must not happen, so a database that
  // cannot take the row leaves the file as it was.
  const pool = await connectDatabase(config);
  try {
    await createMariaDbAuditLog(pool).record({
      emailId: null,
      correlationId: `mailbox-${id}`,
      eventType: MAILBOX_AUDIT_EVENTS.modeChanged,
      errorClass: null,
      actor: by,
      message: `${by} switched mailbox ${id} from ${result.from} to ${mode} in ${path.basename(full)}`,
      details: { mailboxId: id, from: result.from, to: mode },
    });
  } finally {
    await pool.end();
  }
  // Write beside the file and rename: a reader never sees half a registry.
  const tmp = `${full}.${process.pid}.tmp`;
  writeFileSync(tmp, result.text);
  chmodSync(tmp, statSync(full).mode & 0o777);
  renameSync(tmp, full);
  const next =
    mode === MAILBOX_MODES.live
      ? 'restart the workers: mail drafted after that is asked for approval and sent; drafts already in shadow stay there'
      : 'restart the workers: mail drafted after that asks nobody and is never sent; waiting drafts stay as they are';
  return `mailbox ${id} switched from ${result.from} to ${mode} in ${file} (audited as ${by}); ${next}`;
}

export const mailboxModeCommand: CliCommand<string> = {
  name: 'mailboxes mode',
  usage: `mailboxes mode ID live|shadow [--by NAME]
                                        switch ID between live and shadow mode in MAILBOXES_FILE (audited)`,
  options: { by: { type: 'string' } },
  accepts: (rest) => rest.length === 2,
  run: (ctx, { positionals, values }) => mailboxesSetMode(ctx.config(), positionals[0]!, positionals[1]!, byOrActor(values)),
};

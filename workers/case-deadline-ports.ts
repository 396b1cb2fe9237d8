import { loadBusinessCalendars } from '../src/business-time/business-calendars.file';
import { createEscalationMailNotifier } from '../src/cases/escalation.smtp';
import { createWebhookNotifier } from '../src/cases/escalation.webhook';
import { createMariaDbCaseClock } from '../src/cases/case-clock.mariadb';
import type { Pool } from '../src/platform/pool.mariadb';
import type { CaseDeadlinePorts } from '../activities/activity-deps';
import { resolveSecret } from '../src/mailboxes/mailbox-registry';
import type { MailboxDirectory } from '../src/mailboxes/mailbox-directory.port';

/**
 * The case deadline activities' adapters. Reads every mailbox's holidays file now: a bad one
 * throws a ConfigError naming each problem and its mailbox, so the worker does not start.
 */
export function buildCaseDeadlinePorts(pool: Pool, mailboxes: MailboxDirectory): CaseDeadlinePorts {
  return {
    clock: createMariaDbCaseClock(pool),
    calendars: loadBusinessCalendars(mailboxes.list()),
    notifiers: {
      email: createEscalationMailNotifier(mailboxes),
      webhook: createWebhookNotifier({ signingSecret: (id) => webhookSecretOf(mailboxes, id) }),
    },
  };
}

/** The mailbox's webhook signing secret, read now (a rotated file or variable counts at once). */
function webhookSecretOf(mailboxes: MailboxDirectory, mailboxId: string): string | undefined {
  const ref = mailboxes.list().find((m) => m.id === mailboxId)?.deadlines?.escalation.webhookSecret;
  return ref ? resolveSecret(ref) : undefined;
}

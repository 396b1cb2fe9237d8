import { loadBusinessCalendars, type HolidaySettings } from '../src/business-time';
import { createEscalationMailNotifier, createWebhookNotifier } from '../src/cases';
import { createMariaDbCaseClock } from '../src/cases/index.adapters';
import type { Pool } from '../src/platform/pool.mariadb';
import type { CaseDeadlinePorts } from '../activities/activity-deps';
import { resolveSecret, type MailboxDirectory } from '../src/mailboxes';

/**
 * The case deadline activities' adapters. Reads every mailbox's holidays file and computes the
 * public holidays of its region now: a bad file or an unknown region throws a ConfigError naming
 * each problem and its mailbox, so the worker does not start.
 */
export function buildCaseDeadlinePorts(pool: Pool, mailboxes: MailboxDirectory, holidays: HolidaySettings): CaseDeadlinePorts {
  return {
    clock: createMariaDbCaseClock(pool),
    calendars: loadBusinessCalendars(mailboxes.list(), { holidays }),
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
